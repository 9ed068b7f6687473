; Odin: structs, unions, enums, distinct types, procedures, calls (`pkg.f()` / `s->m()` give
; receivers; the grammar nests the call inside the member expression), imports, `using` fields
; as embedding. Capture conventions: see README.md.

(package_declaration (identifier) @package)

; --- definitions
(struct_declaration . (identifier) @name) @definition.struct
(union_declaration . (identifier) @name) @definition.type
(enum_declaration . (identifier) @name) @definition.enum
(bit_field_declaration . (identifier) @name) @definition.struct
(const_declaration . (identifier) @name . (distinct_type)) @definition.type
(procedure_declaration . (identifier) @name) @definition.function
(overloaded_procedure_declaration . (identifier) @name) @definition.function

; --- `using base: Base` embeds Base's fields, like inheritance
(struct_declaration (field "using" (type) @name @reference.inherits))

; --- calls
(call_expression function: (identifier) @name) @reference.call
(member_expression . (_) @receiver . (call_expression function: (identifier) @name)) @reference.call
(selector_call_expression function: (_) @receiver (call_expression function: (identifier) @name)) @reference.call

; --- imports
(import_declaration alias: (identifier)? @import.alias (string (string_content) @import.module)) @import
