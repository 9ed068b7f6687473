; TypeScript: definitions, calls, constructor calls, imports, inheritance.
; Capture conventions: see README.md.

; --- definitions
(class_declaration name: (type_identifier) @name) @definition.class
(abstract_class_declaration name: (type_identifier) @name) @definition.class
(interface_declaration name: (type_identifier) @name) @definition.interface
(enum_declaration name: (identifier) @name) @definition.enum
(type_alias_declaration name: (type_identifier) @name) @definition.type
(internal_module name: [(identifier) (nested_identifier)] @name) @definition.module
(module name: [(identifier) (nested_identifier)] @name) @definition.module
(function_declaration
  name: (identifier) @name
  return_type: (type_annotation (_) @returns)?) @definition.function
(generator_function_declaration name: (identifier) @name) @definition.function
(function_signature
  name: (identifier) @name
  return_type: (type_annotation (_) @returns)?) @definition.function
(method_definition name: (property_identifier) @name (#eq? @name "constructor")) @definition.constructor
(method_definition
  name: [(property_identifier) (private_property_identifier)] @name
  (#not-eq? @name "constructor")
  return_type: (type_annotation (_) @returns)?) @definition.method
(method_signature
  name: (property_identifier) @name
  return_type: (type_annotation (_) @returns)?) @definition.method
(abstract_method_signature
  name: (property_identifier) @name
  return_type: (type_annotation (_) @returns)?) @definition.method
(public_field_definition
  name: [(property_identifier) (private_property_identifier)] @name
  value: [(arrow_function) (function_expression)]) @definition.method
(variable_declarator
  name: (identifier) @name
  value: [(arrow_function) (function_expression) (generator_function)]) @definition.function
(variable_declarator name: (identifier) @name value: (class)) @definition.class

; --- inheritance
(class_heritage
  (extends_clause value: [(identifier) (member_expression)] @name @reference.inherits))
(class_heritage
  (implements_clause [(type_identifier) (nested_type_identifier)] @name @reference.implements))
(class_heritage
  (implements_clause (generic_type name: [(type_identifier) (nested_type_identifier)] @name @reference.implements)))
(extends_type_clause [(type_identifier) (nested_type_identifier)] @name @reference.inherits)
(extends_type_clause (generic_type name: [(type_identifier) (nested_type_identifier)] @name @reference.inherits))

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
(import_statement
  (import_require_clause (identifier) @import.alias source: (string (string_fragment) @import.module))) @import
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

; --- bindings: declared types of fields, parameters and variables, or the class they are `new`ed
; from (receiver types for calls). The first pattern matching a name wins: the annotation.
(public_field_definition
  name: [(property_identifier) (private_property_identifier)] @binding.name
  type: (type_annotation (_) @binding.type)) @binding
(public_field_definition
  name: [(property_identifier) (private_property_identifier)] @binding.name
  value: (new_expression constructor: (_) @binding.type)) @binding
; a property of an interface or object type: `interface Options { retry: RetryPolicy }`
(property_signature
  name: [(property_identifier) (private_property_identifier)] @binding.name
  type: (type_annotation (_) @binding.type)) @binding
; `constructor(private repo: Repo)` declares a field as well as a parameter
(required_parameter
  (accessibility_modifier) @binding.field
  pattern: (identifier) @binding.name
  type: (type_annotation (_) @binding.type)) @binding
(optional_parameter
  (accessibility_modifier) @binding.field
  pattern: (identifier) @binding.name
  type: (type_annotation (_) @binding.type)) @binding
(required_parameter pattern: (identifier) @binding.name type: (type_annotation (_) @binding.type)) @binding
(optional_parameter pattern: (identifier) @binding.name type: (type_annotation (_) @binding.type)) @binding
(variable_declarator
  name: (identifier) @binding.name
  type: (type_annotation (_) @binding.type)) @binding
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
; `export default Foo` / `export default class Foo`, `export { foo as bar }`: another name for Foo
(export_statement "default" @binding.name declaration: (_ name: (_) @binding.alias)) @binding
(export_statement "default" @binding.name value: (identifier) @binding.alias) @binding
(export_statement
  (export_clause (export_specifier name: (identifier) @binding.alias alias: (_) @binding.name))
  !source) @binding
