; Scala (2 and 3): definitions, calls, `new`, imports, inheritance. Capture conventions: see README.md.

(package_clause name: (package_identifier) @package)

; --- definitions (members of a template body are methods: listed before the general pattern)
(class_definition name: (identifier) @name) @definition.class
(trait_definition name: (identifier) @name) @definition.trait
(object_definition name: (identifier) @name) @definition.object
(enum_definition name: (identifier) @name) @definition.enum
(type_definition name: (type_identifier) @name) @definition.type
(template_body (function_definition name: (identifier) @name) @definition.method)
(template_body (function_declaration name: (identifier) @name) @definition.method)
(function_definition name: (identifier) @name) @definition.function
(function_declaration name: (identifier) @name) @definition.function
(given_definition name: (identifier) @name) @definition.object

; --- inheritance: `extends A with B` / `extends A, B`
; (no `type:` field in the patterns: it only matches the first of several types)
(extends_clause [(type_identifier) (stable_type_identifier)] @name @reference.inherits)
(extends_clause (generic_type type: [(type_identifier) (stable_type_identifier)] @name @reference.inherits))

; --- calls
(call_expression function: (identifier) @name) @reference.call
(call_expression
  function: (field_expression value: (_) @receiver field: (identifier) @name)) @reference.call
(call_expression function: (generic_function function: (identifier) @name)) @reference.call
(call_expression
  function: (generic_function
    function: (field_expression value: (_) @receiver field: (identifier) @name))) @reference.call
(instance_expression (type_identifier) @name) @reference.new
(instance_expression (generic_type type: (type_identifier) @name)) @reference.new

; --- imports: the path is flat identifiers, so the module capture is quantified; one import per
; selector in `{a, b => c}`
(import_declaration
  . ((identifier) @import.module . "."?)+
  . [(namespace_selectors
      [(identifier) @import.name
       (arrow_renamed_identifier name: (_) @import.name alias: (_) @import.alias)])
     (namespace_wildcard) @import.wildcard]?) @import
