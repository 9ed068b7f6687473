; Dart: classes, mixins, enums, extensions (members nest under the extended type via @owner),
; methods, constructors, functions, calls, imports, superclass / mixins / interfaces.
; Dart's grammar puts a function's signature and body side by side, so definitions capture both
; (the definition spans them) and calls are an identifier followed by an argument selector.
; Capture conventions: see README.md.

; --- definitions
(class_definition name: (identifier) @name) @definition.class
(mixin_declaration (identifier) @name) @definition.trait
(enum_declaration name: (identifier) @name) @definition.enum
(type_alias (type_identifier) @name) @definition.type
(extension_declaration
  class: (_) @owner
  body: (extension_body
    (method_signature [(function_signature name: (identifier) @name)
                       (getter_signature name: (identifier) @name)
                       (setter_signature name: (identifier) @name)]) @definition.method
    .
    (function_body) @definition.method))
(method_signature (constructor_signature name: (identifier) @name . parameters: (_))) @definition.constructor
(method_signature (factory_constructor_signature (identifier) @name . (formal_parameter_list))) @definition.constructor
(declaration (constructor_signature name: (identifier) @name . parameters: (_))) @definition.constructor
(declaration (factory_constructor_signature (identifier) @name . (formal_parameter_list))) @definition.constructor
(declaration (redirecting_factory_constructor_signature (identifier) @name . (formal_parameter_list))) @definition.constructor
((method_signature
   [(function_signature name: (identifier) @name)
    (getter_signature name: (identifier) @name)
    (setter_signature name: (identifier) @name)]) @definition.method
  .
  (function_body) @definition.method)
(declaration [(function_signature name: (identifier) @name)
              (getter_signature name: (identifier) @name)
              (setter_signature name: (identifier) @name)]) @definition.method
((function_signature name: (identifier) @name) @definition.function
  .
  (function_body) @definition.function)

; --- inheritance
(superclass . (type_identifier) @name @reference.inherits)
(superclass (mixins (type_identifier) @name @reference.implements))
(interfaces (type_identifier) @name @reference.implements)
(mixin_declaration (interfaces (type_identifier) @name @reference.implements))

; --- calls: `f(...)`, `recv.m(...)` (the receiver is the preceding identifier, `this` or `super`)
((identifier) @name
  .
  (selector (argument_part)) @reference.call)
([(identifier) (this) (super)] @receiver
  .
  (selector (unconditional_assignable_selector (identifier) @name))
  .
  (selector (argument_part)) @reference.call)
([(identifier) (this) (super)] @receiver
  .
  (selector (conditional_assignable_selector (identifier) @name))
  .
  (selector (argument_part)) @reference.call)
((selector)
  .
  (selector (unconditional_assignable_selector (identifier) @name))
  .
  (selector (argument_part)) @reference.call)
(new_expression (type_identifier) @name) @reference.new
(const_object_expression (type_identifier) @name) @reference.new

; --- imports: import / export / part
(import_specification
  (configurable_uri (uri (string_literal) @import.module))
  (identifier)? @import.alias) @import
(library_export (configurable_uri (uri (string_literal) @import.module))) @import
(part_directive (uri (string_literal) @import.module)) @import
