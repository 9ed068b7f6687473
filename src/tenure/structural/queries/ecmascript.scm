; What JavaScript and TypeScript share (both grammars name these nodes alike), read after the
; grammar's own file (javascript.scm, typescript.scm), whose patterns win where both match: calls,
; imports, definitions of functions that are values, bindings. Capture conventions: see README.md.

; --- definitions: functions as values. A function expression with a name is named by it; one that
; is the value of a named definition (`const f = () => {}`, `m: function () {}`, a field) is that
; definition; any other is anonymous: `<arrow1>`, `<anonymous1>` in its enclosing definition.
(function_expression name: (identifier) @name) @definition.function @value
(generator_function name: (identifier) @name) @definition.function @value
; a function expression that is the one argument of the call initialising a name is named after it,
; as a decorated function is (`const handler = wrap(function () {})` defines `handler`)
(variable_declarator
  name: (identifier) @name
  value: (call_expression arguments: (arguments . (function_expression !name) @definition.function .)))
(arrow_function) @definition.function @anonymous.arrow @value
(function_expression !name) @definition.function @anonymous.anonymous @value
(generator_function !name) @definition.function @anonymous.anonymous @value
(method_definition name: (computed_property_name (string (string_fragment) @name))) @definition.method
(method_definition name: (computed_property_name) @name) @definition.method
(pair
  key: (property_identifier) @name
  value: [(arrow_function) (function_expression) (generator_function)]) @definition.function
(pair
  key: (string (string_fragment) @name)
  value: [(arrow_function) (function_expression) (generator_function)]) @definition.function
; `exports.f = function () {}`, `Foo.prototype.f = () => {}`, `handler = () => {}`
(assignment_expression
  left: [(member_expression property: (property_identifier) @name) (identifier) @name]
  right: [(arrow_function) (function_expression) (generator_function)]) @definition.function
; an object literal bound to a name and holding functions: its members are named after it
; (`const api = { get() {} }` defines `api.get`)
(variable_declarator name: (identifier) @name value: (object (method_definition))) @definition.object
(variable_declarator
  name: (identifier) @name
  value: (object (pair value: [(arrow_function) (function_expression) (generator_function)]))) @definition.object

; --- calls
(call_expression
  function: (identifier) @name
  (#not-match? @name "^(require|eval)$")) @reference.call
(call_expression
  function: (member_expression
    object: (_) @receiver
    property: [(property_identifier) (private_property_identifier)] @name)) @reference.call
; a decorator without arguments (`@logged`) is a call of it; `@Component({...})` is a call already
(decorator (identifier) @name) @reference.call
(decorator (member_expression object: (_) @receiver property: (property_identifier) @name)) @reference.call
(new_expression constructor: (identifier) @name) @reference.new
(new_expression constructor: (member_expression object: (_) @receiver property: (property_identifier) @name)) @reference.new
; `super(...)` in a constructor: a call of the super class's constructor
(call_expression function: (super) @name) @reference.call
(call_expression function: (identifier) @name (#eq? @name "eval")) @reference.dynamic
(call_expression function: (subscript_expression)) @reference.dynamic

; --- imports: one per imported binding; a bare `import "x"` imports the module only
; (a module's names may be strings: `import { "a-b" as c }`, `export { g as "a-b" }`: their text)
(import_statement
  (import_clause (named_imports (import_specifier
    name: [(identifier) @import.name "default" @import.name (string (string_fragment) @import.name)]
    alias: (_)? @import.alias)))
  source: (string (string_fragment) @import.module)) @import
(import_statement
  (import_clause (namespace_import (identifier) @import.alias))
  source: (string (string_fragment) @import.module)) @import
(import_statement
  (import_clause (identifier) @import.alias @import.default)
  source: (string (string_fragment) @import.module)) @import
(import_statement
  .
  source: (string (string_fragment) @import.module)) @import
; re-exports: `export { a as b } from "./x"` binds b in this module, `export * from` all of x's names
(export_statement
  (export_clause (export_specifier
    name: [(identifier) @import.name "default" @import.name (string (string_fragment) @import.name)]
    alias: [(identifier) @import.alias (string (string_fragment) @import.alias)]?))
  source: (string (string_fragment) @import.module)) @import
(export_statement "*" @import.wildcard source: (string (string_fragment) @import.module)) @import
(export_statement
  (namespace_export (_) @import.alias)
  source: (string (string_fragment) @import.module)) @import
(export_statement
  source: (string (string_fragment) @import.module)) @import
(call_expression
  function: (identifier) @_require (#eq? @_require "require")
  arguments: (arguments . (string (string_fragment) @import.module))) @import
; `const u = require("./u")`, `const { a, b: c } = require("./u")`: the same call node, with names
(variable_declarator
  name: (identifier) @import.alias
  value: (call_expression
    function: (identifier) @_require (#eq? @_require "require")
    arguments: (arguments . (string (string_fragment) @import.module))) @import)
(variable_declarator
  name: (object_pattern (shorthand_property_identifier_pattern) @import.name)
  value: (call_expression
    function: (identifier) @_require (#eq? @_require "require")
    arguments: (arguments . (string (string_fragment) @import.module))) @import)
(variable_declarator
  name: (object_pattern (pair_pattern key: (property_identifier) @import.name value: (identifier) @import.alias))
  value: (call_expression
    function: (identifier) @_require (#eq? @_require "require")
    arguments: (arguments . (string (string_fragment) @import.module))) @import)
(call_expression
  function: (import)
  arguments: (arguments . (string (string_fragment) @import.module))) @import

; --- bindings: variables assigned `new X()` or a call (receiver types for calls), aliases
(variable_declarator
  name: (identifier) @binding.name
  value: (new_expression constructor: (_) @binding.type)) @binding
; `const repo = makeRepo()`: what `makeRepo`'s declared result type says (@returns); `require`
; binds a module, an import
(variable_declarator
  name: (identifier) @binding.name
  value: (call_expression function: (_) @binding.call (#not-eq? @binding.call "require"))) @binding
(assignment_expression
  left: (member_expression
    object: (this) @binding.field
    property: [(property_identifier) (private_property_identifier)] @binding.name)
  right: (new_expression constructor: (_) @binding.type)) @binding
; CommonJS `module.exports = Repo`: the module's value (languages.toml `module_value`) is Repo
(assignment_expression
  left: (member_expression
    object: (identifier) @_module (#eq? @_module "module")
    property: (property_identifier) @binding.name (#eq? @binding.name "exports"))
  right: (identifier) @binding.alias) @binding
; `export default Foo` / `export default class Foo`, `export { foo as bar }`: another name for Foo
(export_statement "default" @binding.name declaration: (_ name: (_) @binding.alias)) @binding
(export_statement "default" @binding.name value: (identifier) @binding.alias) @binding
(export_statement
  (export_clause (export_specifier
    name: (identifier) @binding.alias
    alias: [(identifier) @binding.name (string (string_fragment) @binding.name)]))
  !source) @binding
; (a reserved word as the name, `export { functionType as function }`: JavaScript's grammar leaves
; `as function` an error beside the specifier)
(export_statement
  (export_clause (export_specifier name: (identifier) @binding.alias) . (ERROR "as" . _ @binding.name .))
  !source) @binding

; --- names taken as values, not called (FileFacts.escapes): a function escaping there is called by
; code the graph may not follow (a framework, a registry); what-breaks names these sites of its symbol
; (not in `await (f)(x)`, which JavaScript's grammar reads as a call of a function named await: a call of f)
(call_expression function: _ @_callee arguments: (arguments (identifier) @name)
  (#not-eq? @_callee "await")) @escape.argument
(call_expression
  function: _ @_callee
  arguments: (arguments (member_expression object: (_) @receiver property: (property_identifier) @name))
  (#not-eq? @_callee "await")) @escape.argument
(pair value: (identifier) @name) @escape.item
(pair value: (member_expression object: (_) @receiver property: (property_identifier) @name)) @escape.item
(object (shorthand_property_identifier) @name @escape.item)
(assignment_expression left: [(member_expression) (subscript_expression)] right: (identifier) @name) @escape.stored
(assignment_expression
  left: [(member_expression) (subscript_expression)]
  right: (member_expression object: (_) @receiver property: (property_identifier) @name)) @escape.stored
(return_statement (identifier) @name) @escape.returned
(return_statement (member_expression object: (_) @receiver property: (property_identifier) @name)) @escape.returned
