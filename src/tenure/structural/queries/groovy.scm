; Groovy. The pack's grammar is token-level (command / unit / block / func, no declarations),
; so these patterns read declarations from keyword sequences: `class Name ... { ... }` is a
; command whose block holds the body (and, when the name is right before `{`, the name too);
; a method is a block that opens with `name(args)`. Calls are `func` nodes; `a.b.f()` gives
; receiver `a.b`, and in a chain `f(x).g()` the receiver of g is `f(x)`. The grammar does not
; parse `*` (wildcard imports, multiplication). Capture conventions: see README.md.

; --- package
(command . (unit (identifier) @_p (#eq? @_p "package")) . (unit) @package)

; --- types: the name follows the keyword, or opens the body block when it is right before `{`
(command
  (unit (identifier) @_k (#match? @_k "^(class|trait)$"))
  .
  [(unit . (identifier) @name .) (block . (unit . (identifier) @name .))]) @definition.class
(command
  (unit (identifier) @_k (#eq? @_k "interface"))
  .
  [(unit . (identifier) @name .) (block . (unit . (identifier) @name .))]) @definition.interface
(command
  (unit (identifier) @_k (#eq? @_k "enum"))
  .
  [(unit . (identifier) @name .) (block . (unit . (identifier) @name .))]) @definition.enum

; --- methods and functions: a block opening with `name(args)`; top-level ones are functions
(source_file (command (block . (unit . (func (identifier) @name (arg_block)) .)) @definition.function))
(block . (unit . (func (identifier) @name (arg_block)) .)) @definition.method
; a body-less method declaration: `int retry(int times)` (the return type is a type-like word)
(command
  . (unit . (identifier) @_t .)
  . (unit . (func (identifier) @name (arg_block)) .) .
  (#match? @_t "^(void|def|int|long|short|byte|char|boolean|float|double|[A-Z][A-Za-z0-9_]*)$")) @definition.method

; --- inheritance
(command
  (unit (identifier) @_e (#eq? @_e "extends"))
  .
  [(unit . (identifier) @name @reference.inherits .)
   (block . (unit . (identifier) @name @reference.inherits .))])
(command
  (unit (identifier) @_i (#eq? @_i "implements"))
  .
  [(unit . (identifier) @name @reference.implements .)
   (block . (unit . (identifier) @name @reference.implements .))])

; --- calls: `f(x)`, `a.b.f(x)` (receiver a.b), `new T(x)`
(unit . (func (identifier) @name) @reference.call)
(unit
  . ((identifier) @receiver . "."?)+
  . (func (identifier) @name) @reference.call)
(unit (func) @receiver . (func (identifier) @name) @reference.call)
(command
  (unit . (identifier) @_n (#eq? @_n "new") .)
  .
  (unit . (func (identifier) @name)) @reference.new)

; --- imports: import a.b.C [as D], import static a.b.C.m
(command
  . (unit . (identifier) @_i (#eq? @_i "import") .)
  . (unit . (identifier) @_s (#eq? @_s "static") .)?
  . (unit) @import.module
  .
  ((unit . (identifier) @_as .) . (unit) @import.alias)?
  (#not-eq? @import.module "static")
  (#eq? @_as "as")) @import
