; F#: types (classes, unions, records), modules, members, let-bound functions, applications as
; calls (`Mod.f x` / `obj.M()` give receivers), `open`, `inherit` and interface implementations.
; The namespace is the @package. Capture conventions: see README.md.

(namespace name: (long_identifier) @package)

; --- definitions
(type_definition (anon_type_defn (type_name type_name: (identifier) @name))) @definition.class
(type_definition (union_type_defn (type_name type_name: (identifier) @name))) @definition.type
(type_definition (record_type_defn (type_name type_name: (identifier) @name))) @definition.struct
(type_definition (enum_type_defn (type_name type_name: (identifier) @name))) @definition.enum
(type_definition (interface_type_defn (type_name type_name: (identifier) @name))) @definition.interface
(type_definition (type_abbrev_defn (type_name type_name: (identifier) @name))) @definition.type
(type_definition (type_extension (type_name type_name: (identifier) @name))) @definition.class
(module_defn . (identifier) @name) @definition.module
(member_defn (method_or_prop_defn name: (property_or_ident method: (identifier) @name))) @definition.method
(member_defn (method_or_prop_defn name: (property_or_ident . (identifier) @name .))) @definition.method
(member_defn (member_signature . (identifier) @name)) @definition.method
(function_or_value_defn (function_declaration_left . (identifier) @name)) @definition.function

; --- inheritance
(class_inherits_decl (simple_type (long_identifier) @name @reference.inherits))
(interface_implementation (simple_type (long_identifier) @name @reference.implements))

; --- calls: the applied name; `A.B.f` has receiver `A.B`
(application_expression . (long_identifier_or_op . (identifier) @name .)) @reference.call
(application_expression . (long_identifier_or_op (long_identifier . (identifier) @name .))) @reference.call
(application_expression
  . (long_identifier_or_op (long_identifier . (identifier)+ @receiver . (identifier) @name .))) @reference.call
(application_expression . (dot_expression base: (_) @receiver field: (long_identifier_or_op) @name)) @reference.call

; --- imports
(import_decl (long_identifier) @import.module) @import
