; Erlang: functions (named by their first clause), records, types, macros, local and remote
; calls, -include / -include_lib / -import, -behaviour. Capture conventions: see README.md.

(module_attribute name: (atom) @package)

; --- definitions
(fun_decl . clause: (function_clause name: (atom) @name)) @definition.function
(record_decl name: (atom) @name) @definition.struct
(type_alias name: (type_name name: (atom) @name)) @definition.type
(opaque name: (type_name name: (atom) @name)) @definition.type
(pp_define lhs: (macro_lhs name: (_) @name)) @definition.macro

; --- -behaviour(gen_server): the module implements that behaviour
(behaviour_attribute name: (atom) @name @reference.implements)

; --- calls
(call expr: (atom) @name (#not-match? @name "^apply$")) @reference.call
(call
  expr: (remote module: (remote_module module: (atom) @receiver) fun: (atom) @name)) @reference.call
(call expr: (remote module: (remote_module module: (var)))) @reference.dynamic
(call expr: (remote fun: (var))) @reference.dynamic
(call expr: (atom) @_a (#eq? @_a "apply")) @reference.dynamic
(macro_call_expr name: (_) @name args: (_)) @reference.call

; --- imports
(pp_include file: (string) @import.module) @import
(pp_include_lib file: (string) @import.module) @import
(import_attribute module: (atom) @import.module funs: (fa fun: (atom) @import.name)) @import
