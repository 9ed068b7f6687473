; Tcl: namespaces (`namespace eval`), procs, TclOO classes and methods, commands as calls
; (`my m` gives receiver `my`; a qualified command keeps its `ns::` prefix in the name),
; `package require` and `source`, TclOO superclasses. The grammar reads every braced word as a
; script, so a braced argument list or data (`method m {a b}`) can yield spurious calls.
; Capture conventions: see README.md.

; --- definitions
(namespace
  (word_list . (simple_word) @_e (#eq? @_e "eval") . (simple_word) @name)) @definition.module
(procedure name: (simple_word) @name) @definition.function
(command
  name: (simple_word) @_c (#match? @_c "^(::)?oo::class$")
  arguments: (word_list . (simple_word) @_create (#eq? @_create "create") . (simple_word) @name)) @definition.class
(command
  name: (simple_word) @_m (#match? @_m "^(method|constructor|destructor)$")
  arguments: (word_list . (simple_word) @name)) @definition.method

; --- TclOO inheritance
(command
  name: (simple_word) @_s (#eq? @_s "superclass")
  arguments: (word_list (simple_word) @name @reference.inherits))

; --- calls
(command
  name: (simple_word) @name
  (#not-match? @name "^(package|source|namespace|proc|method|constructor|destructor|superclass|oo::class|::oo::class|my|self|next|eval|uplevel|[-+0-9].*)$")) @reference.call
(command
  name: (simple_word) @receiver (#match? @receiver "^(my|self|next)$")
  arguments: (word_list . (simple_word) @name)) @reference.call
(command name: (simple_word) @_e (#match? @_e "^(eval|uplevel)$")) @reference.dynamic

; --- imports: package require [-exact] name, source file (also `source [file join ... file]`)
(command
  name: (simple_word) @_p (#eq? @_p "package")
  arguments: (word_list
    . (simple_word) @_r (#eq? @_r "require")
    . ((simple_word) @_opt (#match? @_opt "^-"))?
    . (simple_word) @import.module)) @import
(command
  name: (simple_word) @_s (#eq? @_s "source")
  arguments: (word_list . [(simple_word) (quoted_word)] @import.module)) @import
(command
  name: (simple_word) @_s (#eq? @_s "source")
  arguments: (word_list
    . (command_substitution
        (command
          name: (simple_word) @_f (#eq? @_f "file")
          arguments: (word_list . (simple_word) @_j (#eq? @_j "join") (simple_word) @import.module .))))) @import
