; Hack: classes, interfaces, traits, enums, methods, functions, calls (`$o->m()`, `C::m()`,
; `Ns\f()` give receivers), `new`, `use` imports, extends / implements / trait use.
; The namespace is the @package. Capture conventions: see README.md.

(namespace_declaration name: (qualified_identifier) @package)

; --- definitions
(class_declaration name: (identifier) @name) @definition.class
(interface_declaration name: (identifier) @name) @definition.interface
(trait_declaration name: (identifier) @name) @definition.trait
(enum_declaration name: (identifier) @name) @definition.enum
(enum_class_declaration name: (identifier) @name) @definition.enum
(alias_declaration . (identifier) @name) @definition.type
(method_declaration name: (identifier) @name (#eq? @name "__construct")) @definition.constructor
(method_declaration name: (identifier) @name (#not-eq? @name "__construct")) @definition.method
(function_declaration name: (identifier) @name) @definition.function

; --- inheritance
(extends_clause (type_specifier (qualified_identifier) @name @reference.inherits))
(implements_clause (type_specifier (qualified_identifier) @name @reference.implements))
(trait_use_clause (type_specifier (qualified_identifier) @name @reference.implements))

; --- calls
(call_expression function: (qualified_identifier . (identifier) @name .)) @reference.call
(call_expression
  function: (qualified_identifier . (identifier)+ @receiver . (identifier) @name .)) @reference.call
(call_expression
  function: (selection_expression . (_) @receiver (qualified_identifier (identifier) @name .))) @reference.call
(call_expression
  function: (scoped_identifier . (_) @receiver . (identifier) @name .)) @reference.call
(new_expression (qualified_identifier (identifier) @name .)) @reference.new

; --- imports: use A\B; use namespace A\{B, C}; use type A\B
(use_statement . (use_clause (qualified_identifier) @import.module alias: (_)? @import.alias)) @import
(use_statement . (use_type) . (use_clause (qualified_identifier) @import.module alias: (_)? @import.alias)) @import
(use_statement
  . (use_type)? (qualified_identifier) @import.module
  (use_clause (qualified_identifier) @import.name)) @import
