; R: functions (`f <- function`), classes (setRefClass / R6Class / setClass) with their methods,
; S4 generics and methods (setMethod("f", "Class", ...) nests under Class via @owner), calls
; (`pkg::f` and `obj$m` give receivers), library / require / source, `contains` / `inherit`.
; Arguments are separated by named `comma` nodes. Capture conventions: see README.md.

; --- definitions: the class name is the string for setClass / setRefClass (usually the same as
; the variable they are assigned to), the variable for R6Class
(binary_operator
  lhs: (identifier) @name
  operator: ["<-" "<<-" "="]
  rhs: (call
    function: [(identifier) @_k (namespace_operator rhs: (identifier) @_k)]
    (#eq? @_k "R6Class"))) @definition.class
(call
  function: (identifier) @_k (#match? @_k "^(setClass|setRefClass)$")
  arguments: (arguments . (argument value: (string (string_content) @name)))) @definition.class
(call
  function: (identifier) @_k (#eq? @_k "setGeneric")
  arguments: (arguments . (argument value: (string (string_content) @name)))) @definition.function
(call
  function: (identifier) @_k (#eq? @_k "setMethod")
  arguments: (arguments
    . (argument value: (string (string_content) @name))
    . (comma)
    . (argument value: (string (string_content) @owner)))) @definition.method
; methods = list(m = function ...) in a reference class, public = list(...) in an R6 class
(argument
  name: (identifier) @_m (#match? @_m "^(methods|public|private|active)$")
  value: (call
    function: (identifier) @_l (#eq? @_l "list")
    arguments: (arguments (argument name: (identifier) @name value: (function_definition)) @definition.method)))
(binary_operator
  lhs: (identifier) @name
  operator: ["<-" "<<-" "="]
  rhs: (function_definition)) @definition.function
(binary_operator
  lhs: (function_definition)
  operator: ["->" "->>"]
  rhs: (identifier) @name) @definition.function

; --- inheritance: contains = "Base" (S4, reference classes), inherit = Base (R6)
(argument
  name: (identifier) @_c (#match? @_c "^(contains|inherit)$")
  value: [(identifier) @name @reference.inherits
          (string (string_content) @name @reference.inherits)
          (namespace_operator) @name @reference.inherits])

; --- calls
(call
  function: (identifier) @name
  (#not-match? @name "^(library|require|requireNamespace|source|sys.source|do.call|eval|evalq|match.fun|get|setClass|setRefClass|R6Class|setGeneric|setMethod)$")) @reference.call
(call
  function: (namespace_operator lhs: (_) @receiver rhs: (identifier) @name)
  (#not-eq? @name "R6Class")) @reference.call
(call function: (extract_operator lhs: (_) @receiver rhs: (identifier) @name)) @reference.call
(call function: (identifier) @_d (#match? @_d "^(do.call|eval|evalq|match.fun|get)$")) @reference.dynamic

; --- imports: library(pkg), require("pkg"), requireNamespace("pkg"), source("file.R"),
; import::from(pkg, ...)
(call
  function: (identifier) @_l (#match? @_l "^(library|require|requireNamespace|loadNamespace|source|sys.source)$")
  arguments: (arguments . (argument value: [(identifier) @import.module (string (string_content) @import.module)]))) @import
(call
  function: (namespace_operator lhs: (identifier) @_i (#eq? @_i "import"))
  arguments: (arguments . (argument value: [(identifier) @import.module (string (string_content) @import.module)]))) @import
