; D: modules, classes, interfaces, structs, unions, enums, templates, functions (methods in an
; aggregate body), constructors (`this`), calls, `new`, imports, base classes. A call `a.f()`
; often parses as a qualified type `a.f` being called: both forms give receiver `a`.
; Capture conventions: see README.md.

(module_declaration (module_fqn) @package)

; --- definitions
(class_declaration (identifier) @name) @definition.class
(interface_declaration (identifier) @name) @definition.interface
(struct_declaration (identifier) @name) @definition.struct
(union_declaration (identifier) @name) @definition.struct
(enum_declaration (identifier) @name) @definition.enum
(template_declaration (identifier) @name) @definition.type
(mixin_template_declaration (identifier) @name) @definition.type
(aggregate_body (function_declaration (identifier) @name) @definition.method)
(function_declaration (identifier) @name) @definition.function
(constructor (this) @name) @definition.constructor

; --- inheritance
(base_class . (_) @name @reference.inherits)

; --- calls
(call_expression . (identifier) @name) @reference.call
(call_expression . (property_expression . (_) @receiver . (identifier) @name .)) @reference.call
(call_expression . (type . (identifier) @receiver . (identifier) @name .)) @reference.call
(call_expression . (type . (identifier) @name .)) @reference.call
(new_expression (type . (identifier) @name)) @reference.new

; --- imports: import a.b; import a.b : x, y; import alias = a.b
(import_declaration (imported alias: (identifier)? @import.alias (module_fqn) @import.module .)) @import
(import_declaration
  (imported (module_fqn) @import.module)
  (import_bind . (identifier) @import.name)) @import
