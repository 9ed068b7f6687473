; PHP: classes, interfaces, traits, enums, methods, functions, calls, `new`, `use` imports and
; require/include, inheritance and trait use. The namespace is the @package.
; Capture conventions: see README.md.

(namespace_definition name: (namespace_name) @package)

; --- definitions
(class_declaration name: (name) @name) @definition.class
(interface_declaration name: (name) @name) @definition.interface
(trait_declaration name: (name) @name) @definition.trait
(enum_declaration name: (name) @name) @definition.enum
(method_declaration name: (name) @name (#eq? @name "__construct")) @definition.constructor
(method_declaration name: (name) @name (#not-eq? @name "__construct")) @definition.method
(function_definition name: (name) @name) @definition.function

; --- inheritance
(base_clause [(name) (qualified_name)] @name @reference.inherits)
(class_interface_clause [(name) (qualified_name)] @name @reference.implements)
(use_declaration [(name) (qualified_name)] @name @reference.implements)

; --- calls
(function_call_expression function: [(name) (qualified_name)] @name) @reference.call
(function_call_expression function: [(variable_name) (subscript_expression)]) @reference.dynamic
(member_call_expression object: (_) @receiver name: (name) @name) @reference.call
(nullsafe_member_call_expression object: (_) @receiver name: (name) @name) @reference.call
(member_call_expression name: (variable_name)) @reference.dynamic
(scoped_call_expression scope: (_) @receiver name: (name) @name) @reference.call
(object_creation_expression [(name) (qualified_name)] @name) @reference.new

; --- imports: `use A\B [as C];`, `use A\{B, C as D};`, `use function A\f;`, require/include
(namespace_use_declaration
  (namespace_use_clause . [(qualified_name) (name)] @import.module alias: (name)? @import.alias)) @import
(namespace_use_declaration
  (namespace_name) @import.module
  body: (namespace_use_group
    (namespace_use_clause . [(name) (qualified_name)] @import.name alias: (name)? @import.alias))) @import
(require_expression
  [(string (string_content) @import.module)
   (binary_expression right: (string (string_content) @import.module))]) @import
(require_once_expression
  [(string (string_content) @import.module)
   (binary_expression right: (string (string_content) @import.module))]) @import
(include_expression
  [(string (string_content) @import.module)
   (binary_expression right: (string (string_content) @import.module))]) @import
(include_once_expression
  [(string (string_content) @import.module)
   (binary_expression right: (string (string_content) @import.module))]) @import
