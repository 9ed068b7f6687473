; Nim: object / ref object types, enums, type aliases, routines (proc, func, method, iterator,
; converter, template, macro), calls (command syntax too; `a.f()` gives receiver `a`),
; import / from-import / include, `object of Base`. Routines are not owned by a type (UFCS), so
; they are top-level. Capture conventions: see README.md.

; --- definitions
(type_declaration
  (type_symbol_declaration name: [(identifier) @name (exported_symbol (identifier) @name)])
  [(object_declaration) (ref_type (object_declaration)) (pointer_type (object_declaration))]) @definition.class
(type_declaration
  (type_symbol_declaration name: [(identifier) @name (exported_symbol (identifier) @name)])
  (enum_declaration)) @definition.enum
(type_declaration
  (type_symbol_declaration name: [(identifier) @name (exported_symbol (identifier) @name)])
  (concept_declaration)) @definition.interface
(type_declaration
  (type_symbol_declaration name: [(identifier) @name (exported_symbol (identifier) @name)])) @definition.type
(proc_declaration name: [(identifier) @name (exported_symbol (identifier) @name)]) @definition.function
(func_declaration name: [(identifier) @name (exported_symbol (identifier) @name)]) @definition.function
(iterator_declaration name: [(identifier) @name (exported_symbol (identifier) @name)]) @definition.function
(converter_declaration name: [(identifier) @name (exported_symbol (identifier) @name)]) @definition.function
(method_declaration name: [(identifier) @name (exported_symbol (identifier) @name)]) @definition.method
(template_declaration name: [(identifier) @name (exported_symbol (identifier) @name)]) @definition.macro
(macro_declaration name: [(identifier) @name (exported_symbol (identifier) @name)]) @definition.macro

; --- inheritance: `object of Base`
(object_declaration inherits: (type_expression [(identifier) (dot_expression)] @name @reference.inherits))

; --- calls
(call function: (identifier) @name) @reference.call
(call function: (dot_expression left: (_) @receiver right: (identifier) @name)) @reference.call
(dot_generic_call function: (dot_expression left: (_) @receiver right: (identifier) @name)) @reference.call

; --- imports: import a, b/c; import std/[a, b] (one per item); from m import x; include m
(import_statement
  (expression_list [(identifier) (infix_expression right: (identifier)) (interpreted_string_literal)] @import.module)) @import
(import_statement
  (expression_list
    (infix_expression left: (_) @import.module right: (array_construction (identifier) @import.name)))) @import
(import_from_statement module: (_) @import.module (expression_list (identifier) @import.name)) @import
(include_statement (expression_list (_) @import.module)) @import
