; JavaScript (and JSX): what its grammar names differently from TypeScript's; the rest is in
; ecmascript.scm. Capture conventions: see README.md.

; --- definitions
(class_declaration name: (identifier) @name) @definition.class
(function_declaration name: (identifier) @name) @definition.function
(generator_function_declaration name: (identifier) @name) @definition.function
(method_definition name: (property_identifier) @name (#eq? @name "constructor")) @definition.constructor
(method_definition
  name: [(property_identifier) (private_property_identifier)] @name
  (#not-eq? @name "constructor")) @definition.method
(field_definition
  property: [(property_identifier) (private_property_identifier)] @name
  value: [(arrow_function) (function_expression)]) @definition.method
(field_definition property: (property_identifier) @name value: (class)) @definition.class
(variable_declarator
  name: (identifier) @name
  value: [(arrow_function) (function_expression) (generator_function)]) @definition.function
(variable_declarator name: (identifier) @name value: (class)) @definition.class

; --- inheritance
(class_heritage [(identifier) (member_expression)] @name @reference.inherits)

; --- bindings: fields assigned `new X()` (receiver types for calls)
(field_definition
  property: [(property_identifier) (private_property_identifier)] @binding.name
  value: (new_expression constructor: (_) @binding.type)) @binding

; a function named as a parameter's default value (`function run(cb = helper)`) is taken as a value
(formal_parameters (assignment_pattern right: (identifier) @name) @escape.default)
