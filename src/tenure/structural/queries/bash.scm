; Bash / sh: functions, commands as calls (every command: a function, a builtin or a program),
; `source` / `.` as imports. Capture conventions: see README.md.

(function_definition name: (word) @name) @definition.function

(command
  name: (command_name (word) @name)
  (#not-match? @name "^(source|\\.|eval)$")) @reference.call
(command name: (command_name (word) @_e (#eq? @_e "eval"))) @reference.dynamic
(command name: (command_name [(simple_expansion) (expansion)])) @reference.dynamic

(command
  name: (command_name (word) @_s (#match? @_s "^(source|\\.)$"))
  .
  argument: [(word) (string) (raw_string) (concatenation)] @import.module) @import
