; Lua: functions (`function T.f` / `function T:m` nest under T via @owner), class-like tables
; (a capitalised `local T = {}` or `setmetatable(...)`), calls, require, `__index` inheritance.
; Capture conventions: see README.md.

; --- definitions
(variable_declaration
  (assignment_statement
    (variable_list . name: (identifier) @name (#match? @name "^[A-Z]"))
    (expression_list . value: [(table_constructor) (function_call name: (identifier) @_s (#eq? @_s "setmetatable"))]))) @definition.class
(function_declaration
  name: (method_index_expression table: (_) @owner method: (identifier) @name)) @definition.method
(function_declaration
  name: (dot_index_expression table: (_) @owner field: (identifier) @name)) @definition.function
(function_declaration name: (identifier) @name) @definition.function
(variable_declaration
  (assignment_statement
    (variable_list . name: (identifier) @name)
    (expression_list . value: (function_definition)))) @definition.function

; --- inheritance: `setmetatable(T, { __index = Base })`
(function_call
  name: (identifier) @_s (#eq? @_s "setmetatable")
  arguments: (arguments
    (table_constructor
      (field name: (identifier) @_i (#eq? @_i "__index") value: (identifier) @name @reference.inherits))))

; --- calls
(function_call name: (identifier) @name (#not-match? @name "^(require|dofile|loadfile)$")) @reference.call
(function_call name: (dot_index_expression table: (_) @receiver field: (identifier) @name)) @reference.call
(function_call name: (method_index_expression table: (_) @receiver method: (identifier) @name)) @reference.call
(function_call name: (identifier) @_l (#match? @_l "^(load|loadstring)$")) @reference.dynamic

; --- imports: require("m"), require "m", require(script.Parent.M)
(function_call
  name: (identifier) @_r (#match? @_r "^(require|dofile)$")
  arguments: [(arguments . (string content: (string_content) @import.module))
              (string content: (string_content) @import.module)]) @import
; Roblox / Luau: require(script.Parent.Module)
(function_call
  name: (identifier) @_r (#eq? @_r "require")
  arguments: (arguments . [(dot_index_expression) (identifier)] @import.module)) @import
