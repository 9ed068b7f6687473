; Objective-C: @interface / @protocol / @implementation (methods nest under the class via
; @owner), C functions and structs, message sends and calls, #import / @import, superclass and
; adopted protocols. A method is named by its first selector keyword (`initWithName:` ->
; initWithName). Capture conventions: see README.md.

; --- definitions
(class_interface . (identifier) @name) @definition.class
(protocol_declaration . (identifier) @name) @definition.interface
(class_implementation
  . (identifier) @owner
  (implementation_definition (method_definition . (method_type) . (identifier) @name) @definition.method))
(class_implementation
  . (identifier) @owner
  (implementation_definition (method_definition . (identifier) @name) @definition.method))
(method_declaration . (method_type) . (identifier) @name) @definition.method
(method_declaration . (identifier) @name) @definition.method
(function_definition
  declarator: (function_declarator declarator: (identifier) @name)) @definition.function
(function_definition
  declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))) @definition.function
(struct_specifier name: (type_identifier) @name body: (_)) @definition.struct
(enum_specifier name: (type_identifier) @name body: (_)) @definition.enum
(preproc_function_def name: (identifier) @name) @definition.macro

; --- inheritance: superclass, adopted protocols
(class_interface superclass: (identifier) @name @reference.inherits)
(class_interface (parameterized_arguments (type_name (type_identifier) @name @reference.implements)))
(class_interface (protocol_reference_list (identifier) @name @reference.implements))
(protocol_declaration (protocol_reference_list (identifier) @name @reference.inherits))

; --- calls: message sends `[receiver selector:...]` and C calls
(message_expression receiver: (_) @receiver method: (identifier) @name) @reference.call
(message_expression
  receiver: (identifier) @name (#match? @name "^[A-Z]")
  method: (identifier) @_alloc (#match? @_alloc "^(alloc|new)$")) @reference.new
(call_expression function: (identifier) @name) @reference.call
(call_expression
  function: (field_expression argument: (_) @receiver field: (field_identifier) @name)) @reference.call

; --- imports
(preproc_include path: [(string_literal) (system_lib_string)] @import.module) @import
(module_import path: (_) @import.module) @import
