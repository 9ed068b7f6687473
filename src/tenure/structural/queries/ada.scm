; Ada: packages (spec and body), types (records, tagged / derived types), subprograms (specs and
; bodies), calls (function calls and procedure call statements; `Pkg.F` gives receiver `Pkg`),
; `with` / `use` clauses, `new Parent with` derivation. Capture conventions: see README.md.

; --- definitions
(package_declaration name: [(identifier) (selected_component)] @name) @definition.module
(package_body name: [(identifier) (selected_component)] @name) @definition.module
(full_type_declaration . (identifier) @name (record_type_definition)) @definition.struct
(full_type_declaration . (identifier) @name (derived_type_definition)) @definition.class
(full_type_declaration . (identifier) @name (interface_type_definition)) @definition.interface
(full_type_declaration . (identifier) @name) @definition.type
(private_type_declaration . (identifier) @name) @definition.type
(subprogram_body [(function_specification name: (_) @name) (procedure_specification name: (_) @name)]) @definition.function
(subprogram_declaration [(function_specification name: (_) @name) (procedure_specification name: (_) @name)]) @definition.function
(expression_function_declaration (function_specification name: (_) @name)) @definition.function

; --- derivation: `type T is new Parent with ...`, and interfaces after `and`
(derived_type_definition subtype_mark: [(identifier) (selected_component)] @name @reference.inherits)
(derived_type_definition subtype_mark: (_) [(identifier) (selected_component)] @name @reference.implements)

; --- calls
(function_call name: (identifier) @name) @reference.call
(function_call name: (selected_component prefix: (_) @receiver selector_name: (_) @name)) @reference.call
(procedure_call_statement name: (identifier) @name) @reference.call
(procedure_call_statement name: (selected_component prefix: (_) @receiver selector_name: (_) @name)) @reference.call

; --- imports: with A.B; use A.B; (a use clause makes the names visible: a wildcard)
(with_clause [(identifier) (selected_component)] @import.module) @import
(use_clause [(identifier) (selected_component)] @import.module) @import.wildcard @import
