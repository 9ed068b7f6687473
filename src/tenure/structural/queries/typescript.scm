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
(function_declaration name: (identifier) @name) @definition.function
(generator_function_declaration name: (identifier) @name) @definition.function
(function_signature name: (identifier) @name) @definition.function
(method_definition name: (property_identifier) @name (#eq? @name "constructor")) @definition.constructor
(method_definition
  name: [(property_identifier) (private_property_identifier)] @name
  (#not-eq? @name "constructor")) @definition.method
(method_signature name: (property_identifier) @name) @definition.method
(abstract_method_signature name: (property_identifier) @name) @definition.method
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
(new_expression constructor: (identifier) @name) @reference.new
(new_expression constructor: (member_expression object: (_) @receiver property: (property_identifier) @name)) @reference.new
(call_expression function: (identifier) @name (#eq? @name "eval")) @reference.dynamic
(call_expression function: (subscript_expression)) @reference.dynamic

; --- imports: one per imported binding; a bare `import "x"` imports the module only
(import_statement
  (import_clause (named_imports (import_specifier name: (_) @import.name alias: (_)? @import.alias)))
  source: (string (string_fragment) @import.module)) @import
(import_statement
  (import_clause (namespace_import (identifier) @import.alias))
  source: (string (string_fragment) @import.module)) @import
(import_statement
  (import_clause (identifier) @import.alias)
  source: (string (string_fragment) @import.module)) @import
(import_statement
  .
  source: (string (string_fragment) @import.module)) @import
(import_statement
  (import_require_clause (identifier) @import.alias source: (string (string_fragment) @import.module))) @import
(export_statement
  source: (string (string_fragment) @import.module)) @import
(call_expression
  function: (identifier) @_require (#eq? @_require "require")
  arguments: (arguments . (string (string_fragment) @import.module))) @import
(call_expression
  function: (import)
  arguments: (arguments . (string (string_fragment) @import.module))) @import
