; Kotlin: definitions, calls, imports, inheritance. Capture conventions: see README.md.
; Kotlin has no `new`: constructor calls are calls of the class name.

(package_header (identifier) @package)

; --- definitions
(class_declaration "interface" (type_identifier) @name) @definition.interface
(class_declaration "enum" (type_identifier) @name) @definition.enum
(class_declaration "class" (type_identifier) @name) @definition.class
(object_declaration (type_identifier) @name) @definition.object
(companion_object (type_identifier) @name) @definition.object
(type_alias (type_identifier) @name) @definition.type
(secondary_constructor "constructor" @name) @definition.constructor
; an extension function `fun List<T>.total()` nests under its receiver type, like a method
(function_declaration
  receiver: (receiver_type) @owner
  (simple_identifier) @name) @definition.function
; the name is the declaration's only direct simple_identifier child
(class_body (function_declaration (simple_identifier) @name) @definition.method)
(function_declaration (simple_identifier) @name) @definition.function

; --- inheritance: a supertype with a constructor call is the superclass, the others interfaces
(delegation_specifier
  (constructor_invocation (user_type (type_identifier) @name @reference.inherits)))
(delegation_specifier (user_type (type_identifier) @name @reference.implements))
(delegation_specifier
  (explicit_delegation (user_type (type_identifier) @name @reference.implements)))

; --- calls
(call_expression (simple_identifier) @name) @reference.call
(call_expression
  (navigation_expression (_) @receiver (navigation_suffix (simple_identifier) @name))) @reference.call
(constructor_invocation (user_type (type_identifier) @name)) @reference.new

; --- imports
(import_header
  (identifier) @import.module
  [(import_alias (type_identifier) @import.alias) (wildcard_import) @import.wildcard]?) @import
