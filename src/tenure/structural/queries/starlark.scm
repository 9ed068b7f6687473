; Starlark (Bazel .bzl, BUILD, Buck, Tilt): functions, rules / macros / aspects / providers
; assigned to a name, calls (BUILD targets are calls at file scope), load() as imports (one per
; loaded symbol). Capture conventions: see README.md.

; --- definitions
(function_definition name: (identifier) @name) @definition.function
(assignment
  left: (identifier) @name
  right: (call
    function: (identifier) @_r
    (#match? @_r "^(rule|repository_rule|aspect|macro|symbolic_macro|module_extension|tag_class)$"))) @definition.function
(assignment
  left: (identifier) @name
  right: (call function: (identifier) @_p (#eq? @_p "provider"))) @definition.type

; --- calls
(call function: (identifier) @name (#not-eq? @name "load")) @reference.call
(call function: (attribute object: (_) @receiver attribute: (identifier) @name)) @reference.call

; --- imports: load("//pkg:file.bzl", "sym", alias = "sym")
(call
  function: (identifier) @_l (#eq? @_l "load")
  arguments: (argument_list
    . (string (string_content) @import.module)
    (string (string_content) @import.name))) @import
(call
  function: (identifier) @_l (#eq? @_l "load")
  arguments: (argument_list
    . (string (string_content) @import.module)
    (keyword_argument name: (identifier) @import.alias value: (string (string_content) @import.name)))) @import
