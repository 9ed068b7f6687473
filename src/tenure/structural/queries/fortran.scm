; Fortran (free form): modules, programs, derived types (`extends(base)` is inheritance, their
; type-bound procedure bindings are methods), functions and subroutines, calls (`call s()`,
; `f(x)`, `obj%m()`), `use` and `include`. `f(x)` is also Fortran's array indexing: such
; references resolve to nothing. Capture conventions: see README.md.

; --- definitions
(module (module_statement (name) @name)) @definition.module
(submodule (submodule_statement (name) @name)) @definition.module
(program (program_statement (name) @name)) @definition.module
(derived_type_definition (derived_type_statement (type_name) @name)) @definition.class
(interface (interface_statement (name) @name)) @definition.interface
(function (function_statement name: (name) @name)) @definition.function
(subroutine (subroutine_statement name: (name) @name)) @definition.function
(module_procedure (module_procedure_statement name: (name) @name)) @definition.function
; type-bound procedures: `procedure :: retry`, `procedure :: close => base_close`
(procedure_statement declarator: (method_name) @name) @definition.method
(procedure_statement declarator: (binding (binding_name (identifier) @name))) @definition.method

; --- inheritance
(derived_type_statement base: (base_type_specifier (identifier) @name @reference.inherits))

; --- calls
(subroutine_call subroutine: (identifier) @name) @reference.call
(subroutine_call
  subroutine: (derived_type_member_expression . (_) @receiver . (type_member) @name .)) @reference.call
(call_expression . (identifier) @name) @reference.call
(call_expression . (derived_type_member_expression . (_) @receiver . (type_member) @name .)) @reference.call

; --- imports
(use_statement (module_name) @import.module) @import
(include_statement path: (_) @import.module) @import
