; Go: definitions, methods (nested under their receiver type via @owner), calls, composite
; literals, imports, struct / interface embedding. Capture conventions: see README.md.

(package_clause (package_identifier) @package)

; --- definitions
(type_spec name: (type_identifier) @name type: (struct_type)) @definition.struct
(type_spec name: (type_identifier) @name type: (interface_type)) @definition.interface
(type_spec
  name: (type_identifier) @name
  type: (_) @_t (#not-match? @_t "^(struct|interface)")) @definition.type
(type_alias name: (type_identifier) @name) @definition.type
(method_elem name: (field_identifier) @name result: (_)? @returns) @definition.method
(function_declaration name: (identifier) @name result: (_)? @returns) @definition.function
; `func (s *Service[T]) Retry()`: the receiver type is the owner, the method nests as Service.Retry
(method_declaration
  receiver: (parameter_list (parameter_declaration type: (_) @owner))
  name: (field_identifier) @name
  result: (_)? @returns) @definition.method

; --- embedding is Go's inheritance
(field_declaration
  !name
  type: [(type_identifier) (qualified_type) (generic_type)] @name @reference.inherits)
(field_declaration
  !name
  type: (pointer_type [(type_identifier) (qualified_type)] @name @reference.inherits))
(interface_type (type_elem [(type_identifier) (qualified_type)] @name @reference.inherits))

; --- calls
(call_expression function: (identifier) @name) @reference.call
(call_expression
  function: (selector_expression operand: (_) @receiver field: (field_identifier) @name)) @reference.call
(composite_literal type: (type_identifier) @name) @reference.new
(composite_literal
  type: (qualified_type package: (package_identifier) @receiver name: (type_identifier) @name)) @reference.new

; --- imports
; one pattern, so each spec yields one import: `str "strings"`, `_ "embed"`, `. "math"` (wildcard)
(import_spec
  name: [(package_identifier) @import.alias (blank_identifier) @import.alias (dot) @import.wildcard]?
  path: (interpreted_string_literal) @import.module) @import

; --- bindings: declared types of parameters (receivers too), struct fields and variables, the
; struct a variable is made from (`s := &Service{}`, `var s = Service{}`, `s := new(Service)`), or
; the call whose result it holds. The first pattern matching a name wins.
(parameter_declaration name: (identifier) @binding.name type: (_) @binding.type) @binding
(field_declaration name: (field_identifier) @binding.name type: (_) @binding.type) @binding
(var_spec name: (identifier) @binding.name type: (_) @binding.type) @binding
(var_spec
  name: (identifier) @binding.name
  value: (expression_list .
    [(composite_literal type: (_) @binding.type)
     (unary_expression operand: (composite_literal type: (_) @binding.type))
     (call_expression
       function: (identifier) @_new (#eq? @_new "new")
       arguments: (argument_list . (_) @binding.type .))] .)) @binding
(var_spec
  name: (identifier) @binding.name
  !type
  value: (expression_list . (call_expression function: (_) @binding.call))) @binding
(short_var_declaration
  left: (expression_list . (identifier) @binding.name .)
  right: (expression_list .
    [(composite_literal type: (_) @binding.type)
     (unary_expression operand: (composite_literal type: (_) @binding.type))
     (call_expression
       function: (identifier) @_new (#eq? @_new "new")
       arguments: (argument_list . (_) @binding.type .))] .)) @binding
; `s, err := billing.NewService()`: what the callee's declared result type says (@returns)
(short_var_declaration
  left: (expression_list . (identifier) @binding.name)
  right: (expression_list . (call_expression function: (_) @binding.call))) @binding
