; C#: definitions, calls, `new`, `using` imports, inheritance. The namespace is the @package.
; Capture conventions: see README.md.

(namespace_declaration name: [(identifier) (qualified_name)] @package)
(file_scoped_namespace_declaration name: [(identifier) (qualified_name)] @package)

; --- definitions
(class_declaration name: (identifier) @name) @definition.class
(interface_declaration name: (identifier) @name) @definition.interface
(struct_declaration name: (identifier) @name) @definition.struct
(enum_declaration name: (identifier) @name) @definition.enum
(record_declaration name: (identifier) @name) @definition.class
(delegate_declaration name: (identifier) @name) @definition.type
(method_declaration name: (identifier) @name) @definition.method
(constructor_declaration name: (identifier) @name) @definition.constructor
(local_function_statement name: (identifier) @name) @definition.function
(property_declaration name: (identifier) @name accessors: (accessor_list (accessor_declaration body: (_)))) @definition.method

; --- inheritance: the base list mixes the base class and interfaces
(base_list [(identifier) (qualified_name)] @name @reference.inherits)
(base_list (generic_name (identifier) @name @reference.inherits))
(base_list (primary_constructor_base_type type: [(identifier) (qualified_name)] @name @reference.inherits))

; --- calls
(invocation_expression function: (identifier) @name) @reference.call
(invocation_expression function: (generic_name (identifier) @name)) @reference.call
(invocation_expression
  function: (member_access_expression
    expression: _ @receiver
    name: [(identifier) (generic_name (identifier))] @name)) @reference.call
(invocation_expression
  function: (conditional_access_expression
    condition: (_) @receiver
    (member_binding_expression name: (identifier) @name))) @reference.call
(object_creation_expression type: [(identifier) (qualified_name)] @name) @reference.new
(object_creation_expression type: (generic_name (identifier) @name)) @reference.new

; --- imports: `using A.B;`, `using static A.B;` (all static members), `using X = A.B;`
(using_directive
  !name
  "static"? @import.wildcard
  [(identifier) (qualified_name)] @import.module) @import
(using_directive
  name: (identifier) @import.alias
  [(identifier) (qualified_name)] @import.module .) @import
