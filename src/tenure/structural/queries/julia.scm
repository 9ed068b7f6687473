; Julia: modules, structs, abstract types, functions (long and short form), macros, calls,
; using / import / include, `<:` supertypes. Multiple dispatch has no owner type: methods are
; functions. Capture conventions: see README.md.

; --- definitions
(module_definition name: (identifier) @name) @definition.module
(struct_definition (type_head (identifier) @name)) @definition.struct
(struct_definition (type_head (binary_expression . (identifier) @name))) @definition.struct
(struct_definition (type_head (parametrized_type_expression . (identifier) @name))) @definition.struct
(struct_definition (type_head (binary_expression . (parametrized_type_expression . (identifier) @name)))) @definition.struct
(abstract_definition (type_head (identifier) @name)) @definition.type
(abstract_definition (type_head (binary_expression . (identifier) @name))) @definition.type
(function_definition
  (signature [(call_expression . [(identifier) @name (field_expression (identifier) @name .)])
              (typed_expression . (call_expression . [(identifier) @name (field_expression (identifier) @name .)]))
              (where_expression . (call_expression . [(identifier) @name (field_expression (identifier) @name .)]))
              (where_expression . (typed_expression . (call_expression . [(identifier) @name (field_expression (identifier) @name .)])))])) @definition.function
(assignment
  . [(call_expression . [(identifier) @name (field_expression (identifier) @name .)])
     (where_expression . (call_expression . (identifier) @name))]
  (operator) @_eq (#eq? @_eq "=")) @definition.function
(macro_definition (signature (call_expression . (identifier) @name))) @definition.macro

; --- supertypes: `struct S <: T`, `abstract type A <: B end`
(type_head
  (binary_expression
    . (_)
    . (operator) @_sub (#eq? @_sub "<:")
    . [(identifier) @name (parametrized_type_expression . (identifier) @name)
       (field_expression) @name] @reference.inherits))

; --- calls
(call_expression . (identifier) @name (#not-match? @name "^(include|eval)$")) @reference.call
(call_expression . (field_expression value: (_) @receiver (identifier) @name .)) @reference.call
(broadcast_call_expression . (identifier) @name) @reference.call
(call_expression . (identifier) @_e (#eq? @_e "eval")) @reference.dynamic

; --- imports: using / import (one per selected name), include("file.jl")
(using_statement [(identifier) (import_path)] @import.module) @import
(import_statement [(identifier) (import_path)] @import.module) @import
(import_statement (import_alias . (_) @import.module . (identifier) @import.alias)) @import
(using_statement
  (selected_import . [(identifier) (import_path)] @import.module (identifier) @import.name)) @import
(import_statement
  (selected_import . [(identifier) (import_path)] @import.module (identifier) @import.name)) @import
(call_expression
  . (identifier) @_inc (#eq? @_inc "include")
  (argument_list . (string_literal (content) @import.module))) @import
