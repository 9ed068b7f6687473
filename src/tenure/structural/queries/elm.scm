; Elm: type aliases, custom types, functions, calls (`Mod.f x` gives receiver `Mod`), imports.
; Capture conventions: see README.md.

(module_declaration name: (upper_case_qid) @package)

; --- definitions
(type_alias_declaration name: (upper_case_identifier) @name) @definition.type
(type_declaration name: (upper_case_identifier) @name) @definition.type
(value_declaration
  functionDeclarationLeft: (function_declaration_left . (lower_case_identifier) @name)) @definition.function
(port_annotation name: (lower_case_identifier) @name) @definition.function

; --- calls
(function_call_expr
  target: (value_expr name: (value_qid . (lower_case_identifier) @name .))) @reference.call
(function_call_expr
  target: (value_expr
    name: (value_qid . ((upper_case_identifier) @receiver . (dot))+ . (lower_case_identifier) @name .))) @reference.call
(function_call_expr
  target: (value_expr name: (upper_case_qid (upper_case_identifier) @name .))) @reference.new

; --- imports
(import_clause
  moduleName: (upper_case_qid) @import.module
  asClause: (as_clause name: (upper_case_identifier) @import.alias)?) @import
