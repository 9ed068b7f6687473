; Elixir: modules, protocols, functions, macros, calls, alias/import/require/use, `use` and
; `@behaviour` as the module's super types. Definitions are macro calls (`def f(x) do`), so the
; plain call patterns leave the definition forms out (and the extractor drops a call on a
; definition's own name). Capture conventions: see README.md.

; --- definitions
(call
  target: (identifier) @_k (#match? @_k "^(defmodule|defprotocol)$")
  (arguments . (alias) @name)) @definition.module
(call
  target: (identifier) @_k (#eq? @_k "defimpl")
  (arguments . (alias) @name)) @definition.module
(call
  target: (identifier) @_k (#match? @_k "^(def|defp|defdelegate|defguard|defguardp|defn|defnp)$")
  (arguments . [(call target: (identifier) @name)
                (identifier) @name
                (binary_operator operator: "when" left: [(call target: (identifier) @name) (identifier) @name])])) @definition.function
(call
  target: (identifier) @_k (#match? @_k "^(defmacro|defmacrop)$")
  (arguments . [(call target: (identifier) @name)
                (identifier) @name
                (binary_operator operator: "when" left: [(call target: (identifier) @name) (identifier) @name])])) @definition.macro

; --- super types: `use GenServer`, `@behaviour Mod`
(call
  target: (identifier) @_k (#eq? @_k "use")
  (arguments . (alias) @name @reference.inherits))
(unary_operator
  operator: "@"
  operand: (call
    target: (identifier) @_k (#eq? @_k "behaviour")
    (arguments . (alias) @name @reference.implements)))

; --- calls
(call
  target: (identifier) @name
  (#not-match? @name "^(def|defp|defmodule|defprotocol|defimpl|defmacro|defmacrop|defdelegate|defguard|defguardp|defstruct|defexception|defoverridable|alias|import|require|use|quote|unquote|unquote_splicing|moduledoc|doc|typedoc|impl|behaviour|spec|type|typep|opaque|callback|macrocallback|derive|enforce_keys|compile|dialyzer|if|unless|case|cond|with|for|try|receive|fn)$")) @reference.call
(call
  target: (dot left: (_) @receiver right: (identifier) @name)) @reference.call
(call
  target: (dot left: (alias) @_m (#eq? @_m "Kernel") right: (identifier) @_f (#eq? @_f "apply"))) @reference.dynamic
(call target: (identifier) @_f (#eq? @_f "apply")) @reference.dynamic

; --- imports: alias / import / require / use, one per module (`alias A.{B, C}` gives A with B, C)
(call
  target: (identifier) @_k (#match? @_k "^(alias|import|require|use)$")
  (arguments . (alias) @import.module)) @import
(call
  target: (identifier) @_k (#eq? @_k "alias")
  (arguments . (dot left: (alias) @import.module right: (tuple (alias) @import.name)))) @import
