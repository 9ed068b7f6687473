; C: functions, structs/unions/enums/typedefs, macros, calls, #include. Capture conventions: see
; README.md. Prototypes are not definitions (a .c file would define its functions twice).

; --- definitions
(function_definition
  declarator: (function_declarator declarator: (identifier) @name)) @definition.function
(function_definition
  declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))) @definition.function
(function_definition
  declarator: (pointer_declarator
    declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))) @definition.function
(struct_specifier name: (type_identifier) @name body: (_)) @definition.struct
(union_specifier name: (type_identifier) @name body: (_)) @definition.struct
(enum_specifier name: (type_identifier) @name body: (_)) @definition.enum
; `typedef struct { ... } Name;`: the anonymous struct takes the typedef's name
(type_definition
  type: [(struct_specifier !name body: (_)) (union_specifier !name body: (_))] @definition.struct
  declarator: (type_identifier) @name)
(type_definition
  type: (enum_specifier !name body: (_)) @definition.enum
  declarator: (type_identifier) @name)
(type_definition
  type: [(primitive_type) (type_identifier) (sized_type_specifier)
         (struct_specifier !body) (union_specifier !body) (enum_specifier !body)]
  declarator: (type_identifier) @name) @definition.type
(type_definition
  declarator: (function_declarator
    declarator: (parenthesized_declarator (pointer_declarator declarator: (type_identifier) @name)))) @definition.type
(preproc_function_def name: (identifier) @name) @definition.macro
(preproc_def name: (identifier) @name) @definition.constant

; --- calls
(call_expression function: (identifier) @name) @reference.call
(call_expression
  function: (field_expression argument: (_) @receiver field: (field_identifier) @name)) @reference.call
(call_expression function: (parenthesized_expression)) @reference.dynamic

; --- includes
(preproc_include path: [(string_literal) (system_lib_string)] @import.module) @import
