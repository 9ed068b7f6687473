; Solidity: contracts, interfaces, libraries, structs, enums, events, errors, functions,
; modifiers, constructors, calls, `new`, emits, imports, `is` inheritance.
; Capture conventions: see README.md.

; --- definitions
(contract_declaration name: (identifier) @name) @definition.class
(interface_declaration name: (identifier) @name) @definition.interface
(library_declaration name: (identifier) @name) @definition.module
(struct_declaration name: (identifier) @name) @definition.struct
(enum_declaration name: (identifier) @name) @definition.enum
(event_definition name: (identifier) @name) @definition.type
(error_declaration name: (identifier) @name) @definition.type
(user_defined_type_definition name: (identifier) @name) @definition.type
(contract_body (function_definition name: (identifier) @name) @definition.method)
(function_definition name: (identifier) @name) @definition.function
(modifier_definition name: (identifier) @name) @definition.method
(constructor_definition "constructor" @name) @definition.constructor
(fallback_receive_definition ["fallback" "receive"] @name) @definition.method

; --- inheritance: `contract A is B, C`, constructor calls of bases
(inheritance_specifier ancestor: (user_defined_type) @name @reference.inherits)

; --- calls
(call_expression function: (expression (identifier) @name)) @reference.call
(call_expression
  function: (expression (member_expression object: (_) @receiver property: (identifier) @name))) @reference.call
(call_expression function: (expression (new_expression name: (type_name) @name))) @reference.new
(emit_statement name: (expression (identifier) @name)) @reference.call
(modifier_invocation . (identifier) @name) @reference.call

; --- imports: import "x"; import {A as B} from "x"; import * as U from "x"; import "x" as U
(import_directive
  import_name: (identifier)? @import.name
  alias: (identifier)? @import.alias
  source: (string) @import.module) @import
