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
(export_statement
  source: (string (string_fragment) @import.module)) @import
(call_expression
  function: (identifier) @_require (#eq? @_require "require")
  arguments: (arguments . (string (string_fragment) @import.module))) @import
(call_expression
  function: (import)
  arguments: (arguments . (string (string_fragment) @import.module))) @import

; --- JSX: rendering a component (capitalised tag) is a call of it
(jsx_opening_element name: (identifier) @name (#match? @name "^[A-Z]")) @reference.call
(jsx_self_closing_element name: (identifier) @name (#match? @name "^[A-Z]")) @reference.call
(jsx_opening_element name: (member_expression object: (_) @receiver property: (property_identifier) @name)) @reference.call
(jsx_self_closing_element name: (member_expression object: (_) @receiver property: (property_identifier) @name)) @reference.call
