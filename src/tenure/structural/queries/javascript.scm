; JavaScript (and JSX): definitions, calls, constructor calls, imports (ESM and CommonJS),
; inheritance. Capture conventions: see README.md.

; --- definitions
(class_declaration name: (identifier) @name) @definition.class
(function_declaration name: (identifier) @name) @definition.function
(generator_function_declaration name: (identifier) @name) @definition.function
(method_definition name: (property_identifier) @name (#eq? @name "constructor")) @definition.constructor
(method_definition
  name: [(property_identifier) (private_property_identifier)] @name
  (#not-eq? @name "constructor")) @definition.method
(field_definition
  property: [(property_identifier) (private_property_identifier)] @name
  value: [(arrow_function) (function_expression)]) @definition.method
(variable_declarator
  name: (identifier) @name
  value: [(arrow_function) (function_expression) (generator_function)]) @definition.function
(variable_declarator name: (identifier) @name value: (class)) @definition.class
(pair
  key: (property_identifier) @name
  value: [(arrow_function) (function_expression)]) @definition.function
; `exports.f = function () {}`, `Foo.prototype.f = () => {}`
(assignment_expression
  left: (member_expression property: (property_identifier) @name)
  right: [(arrow_function) (function_expression)]) @definition.function

; --- inheritance
(class_heritage [(identifier) (member_expression)] @name @reference.inherits)

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
(import_statement
  (import_clause (named_imports (import_specifier name: _ @import.name alias: (_)? @import.alias)))
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
  (export_clause (export_specifier name: _ @import.name alias: (_)? @import.alias))
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

; --- bindings: fields and variables assigned `new X()` (receiver types for calls)
(field_definition
  property: [(property_identifier) (private_property_identifier)] @binding.name
  value: (new_expression constructor: (_) @binding.type)) @binding
(variable_declarator
  name: (identifier) @binding.name
  value: (new_expression constructor: (_) @binding.type)) @binding
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
  (export_clause (export_specifier name: (identifier) @binding.alias alias: (_) @binding.name))
  !source) @binding
