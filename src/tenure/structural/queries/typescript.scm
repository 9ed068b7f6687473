; TypeScript: what its grammar names differently from JavaScript's, and its types; the rest is in
; ecmascript.scm. Capture conventions: see README.md.

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
(public_field_definition name: (property_identifier) @name value: (class)) @definition.class

; --- inheritance
(class_heritage
  (extends_clause value: [(identifier) (member_expression)] @name @reference.inherits))
(class_heritage
  (implements_clause [(type_identifier) (nested_type_identifier)] @name @reference.implements))
(class_heritage
  (implements_clause (generic_type name: [(type_identifier) (nested_type_identifier)] @name @reference.implements)))
(extends_type_clause [(type_identifier) (nested_type_identifier)] @name @reference.inherits)
(extends_type_clause (generic_type name: [(type_identifier) (nested_type_identifier)] @name @reference.inherits))

; --- imports: TypeScript's own form (the others are in ecmascript.scm)
(import_statement
  (import_require_clause (identifier) @import.alias source: (string (string_fragment) @import.module))) @import

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

; a function named as a parameter's default value (`function run(cb = helper)`) is taken as a value
(required_parameter value: (identifier) @name) @escape.default
(optional_parameter value: (identifier) @name) @escape.default
