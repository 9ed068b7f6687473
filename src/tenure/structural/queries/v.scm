; V: structs, interfaces, enums, type aliases, functions, methods (`fn (s Service) f()` nests
; under the receiver type via @owner), calls, struct initialisation, imports, struct embedding.
; Capture conventions: see README.md.

(module_clause (module_identifier) @package)

; --- definitions
(struct_declaration name: (type_identifier) @name) @definition.struct
(interface_declaration name: (type_identifier) @name) @definition.interface
(interface_spec name: (field_identifier) @name) @definition.method
(enum_declaration name: (type_identifier) @name) @definition.enum
(type_declaration name: (type_identifier) @name) @definition.type
(function_declaration
  receiver: (parameter_list (parameter_declaration type: (_) @owner))
  name: (identifier) @name) @definition.method
(function_declaration name: (identifier) @name) @definition.function

; --- embedding: a struct field that is only a type
(struct_field_declaration !name type: [(type_identifier) (qualified_type)] @name @reference.inherits)

; --- calls
(call_expression function: (identifier) @name) @reference.call
(call_expression
  function: (selector_expression operand: (_) @receiver field: (identifier) @name)) @reference.call
(type_initializer type: [(type_identifier) (qualified_type)] @name) @reference.new
(type_initializer type: (pointer_type [(type_identifier) (qualified_type)] @name)) @reference.new

; --- imports
(import_declaration
  path: (import_path) @import.module
  alias: (import_alias name: (_) @import.alias)?) @import
