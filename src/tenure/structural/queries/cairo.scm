; Cairo (1.x): modules, structs, enums, traits, functions, trait impls (`impl I of Trait<T>`:
; methods nest under T via @owner, and T implements Trait), calls, struct literals, `use` and
; `mod x;`. Capture conventions: see README.md.

; --- definitions
(mod_item name: (identifier) @name body: (declaration_list)) @definition.module
(struct_item name: (type_identifier) @name) @definition.struct
(enum_item name: (type_identifier) @name) @definition.enum
(trait_item name: (type_identifier) @name) @definition.trait
(trait_item body: (declaration_list (function_signature . (identifier) @name) @definition.method))
(impl_item
  (generic_type (type_arguments . (type_identifier) @owner))
  (block (function_definition . (identifier) @name) @definition.method))
(impl_item
  . (type_identifier) @owner
  . (type_identifier)
  (block (function_definition . (identifier) @name) @definition.method))
(function_definition . (identifier) @name) @definition.function

; --- `impl I of Trait<T>`: T implements Trait
(impl_item
  (generic_type
    type: (type_identifier) @name @reference.implements
    (type_arguments . (type_identifier) @owner)))

; --- calls
(call_expression function: (identifier) @name) @reference.call
(call_expression function: (field_expression value: (_) @receiver field: (field_identifier) @name)) @reference.call
(call_expression function: (scoped_identifier path: (_) @receiver name: (identifier) @name)) @reference.call
(call_expression function: (generic_function function: (identifier) @name)) @reference.call
(struct_expression name: (type_identifier) @name) @reference.new

; --- imports
(use_declaration argument: (identifier) @import.module) @import
(use_declaration argument: (scoped_identifier path: (_) @import.module name: (identifier) @import.name)) @import
(use_declaration
  argument: (use_as_clause
    path: (scoped_identifier path: (_) @import.module name: (identifier) @import.name)
    alias: (identifier) @import.alias)) @import
(use_declaration
  argument: (scoped_use_list path: (_) @import.module list: (use_list (identifier) @import.name))) @import
(mod_item name: (identifier) @import.module !body) @import
