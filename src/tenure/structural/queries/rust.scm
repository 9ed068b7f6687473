; Rust: definitions (methods in `impl T` nest under T via @owner), calls, macro calls, struct
; literals, `use` imports, trait impls and supertraits. Capture conventions: see README.md.

; --- definitions
(struct_item name: (type_identifier) @name) @definition.struct
(union_item name: (type_identifier) @name) @definition.struct
(enum_item name: (type_identifier) @name) @definition.enum
(trait_item name: (type_identifier) @name) @definition.trait
(type_item name: (type_identifier) @name) @definition.type
(mod_item name: (identifier) @name body: (declaration_list)) @definition.module
(macro_definition name: (identifier) @name) @definition.macro
(function_item name: (identifier) @name) @definition.function
(function_signature_item name: (identifier) @name) @definition.method
(impl_item
  type: (_) @owner
  body: (declaration_list (function_item name: (identifier) @name) @definition.method))
(impl_item
  type: (_) @owner
  body: (declaration_list (function_signature_item name: (identifier) @name) @definition.method))

; --- inheritance: `impl Trait for T` (owner T), supertraits `trait A: B + C`
(impl_item
  trait: [(type_identifier) (scoped_type_identifier)] @name @reference.implements
  type: (_) @owner)
(impl_item
  trait: (generic_type type: [(type_identifier) (scoped_type_identifier)] @name @reference.implements)
  type: (_) @owner)
(trait_item
  bounds: (trait_bounds [(type_identifier) (scoped_type_identifier)] @name @reference.inherits))
(trait_item
  bounds: (trait_bounds (generic_type type: [(type_identifier) (scoped_type_identifier)] @name @reference.inherits)))

; --- calls
(call_expression function: (identifier) @name) @reference.call
(call_expression
  function: (field_expression value: (_) @receiver field: (field_identifier) @name)) @reference.call
(call_expression
  function: (scoped_identifier path: (_) @receiver name: (identifier) @name)) @reference.call
(call_expression
  function: (generic_function function: (identifier) @name)) @reference.call
(call_expression
  function: (generic_function
    function: [(field_expression value: (_) @receiver field: (field_identifier) @name)
               (scoped_identifier path: (_) @receiver name: (identifier) @name)])) @reference.call
(macro_invocation macro: (identifier) @name) @reference.call
(macro_invocation macro: (scoped_identifier path: (_) @receiver name: (identifier) @name)) @reference.call
(struct_expression name: (type_identifier) @name) @reference.new
(struct_expression
  name: (scoped_type_identifier path: (_) @receiver name: (type_identifier) @name)) @reference.new

; --- imports: one per `use` item
(use_declaration argument: (identifier) @import.module) @import
(use_declaration
  argument: (scoped_identifier path: (_) @import.module name: (identifier) @import.name)) @import
(use_declaration
  argument: (use_as_clause
    path: (scoped_identifier path: (_) @import.module name: (identifier) @import.name)
    alias: (identifier) @import.alias)) @import
(use_declaration
  argument: (use_as_clause path: (identifier) @import.module alias: (identifier) @import.alias)) @import
(use_declaration argument: (use_wildcard (_) @import.module) @import.wildcard) @import
(use_declaration
  argument: (scoped_use_list
    path: (_) @import.module
    list: (use_list [(identifier) (self) (scoped_identifier)] @import.name))) @import
(use_declaration
  argument: (scoped_use_list
    path: (_) @import.module
    list: (use_list (use_as_clause path: (_) @import.name alias: (identifier) @import.alias)))) @import
(use_declaration
  argument: (scoped_use_list
    path: (_) @import.module
    list: (use_list (use_wildcard) @import.wildcard))) @import
(mod_item name: (identifier) @import.module !body) @import
(extern_crate_declaration name: (identifier) @import.module) @import
