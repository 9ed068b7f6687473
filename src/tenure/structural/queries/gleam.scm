; Gleam: custom types, type aliases, functions, external functions, calls (`mod.f()` gives
; receiver `mod`), record construction, imports. Capture conventions: see README.md.

; --- definitions
(type_definition (type_name name: (type_identifier) @name)) @definition.type
(type_alias (type_name name: (type_identifier) @name)) @definition.type
(function name: (identifier) @name) @definition.function
(external_function name: (identifier) @name) @definition.function
(constant name: (identifier) @name) @definition.constant

; --- calls
(function_call function: (identifier) @name) @reference.call
(function_call function: (field_access record: (_) @receiver field: (label) @name)) @reference.call
(record name: (constructor_name) @name) @reference.new
(record name: (remote_constructor_name module: (identifier) @receiver name: (constructor_name) @name)) @reference.new

; --- imports: one per unqualified name, or the module
(import module: (module) @import.module alias: (identifier)? @import.alias !imports) @import
(import
  module: (module) @import.module
  imports: (unqualified_imports (unqualified_import name: (_) @import.name))) @import
