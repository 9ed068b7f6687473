; Swift: classes, structs, enums, actors, protocols, extensions (members nest under the extended
; type via @owner), functions, calls, imports, inheritance / conformance.
; Capture conventions: see README.md.

; --- definitions (specific patterns first: see README.md)
(class_declaration declaration_kind: "class" name: (type_identifier) @name) @definition.class
(class_declaration declaration_kind: "actor" name: (type_identifier) @name) @definition.class
(class_declaration declaration_kind: "struct" name: (type_identifier) @name) @definition.struct
(class_declaration declaration_kind: "enum" name: (type_identifier) @name) @definition.enum
(protocol_declaration name: (type_identifier) @name) @definition.interface
(typealias_declaration name: (type_identifier) @name) @definition.type
(class_declaration
  declaration_kind: "extension"
  name: (user_type) @owner
  body: (class_body [(function_declaration name: (simple_identifier) @name)
                     (init_declaration "init" @name)] @definition.method))
(class_body (function_declaration name: (simple_identifier) @name) @definition.method)
(enum_class_body (function_declaration name: (simple_identifier) @name) @definition.method)
(function_declaration name: (simple_identifier) @name) @definition.function
(protocol_function_declaration name: (simple_identifier) @name) @definition.method
(init_declaration "init" @name) @definition.constructor

; --- inheritance and protocol conformance; an extension's belong to the extended type
(class_declaration
  declaration_kind: ["class" "struct" "enum" "actor"]
  (inheritance_specifier
    inherits_from: (user_type (type_identifier) @name @reference.inherits . (type_arguments)? .)))
(protocol_declaration
  (inheritance_specifier
    inherits_from: (user_type (type_identifier) @name @reference.inherits . (type_arguments)? .)))
(class_declaration
  declaration_kind: "extension"
  name: (user_type) @owner
  (inheritance_specifier
    inherits_from: (user_type (type_identifier) @name @reference.implements . (type_arguments)? .)))

; --- calls
(call_expression (simple_identifier) @name) @reference.call
(call_expression
  (navigation_expression
    target: (_) @receiver
    suffix: (navigation_suffix suffix: (simple_identifier) @name))) @reference.call

; --- imports
(import_declaration (identifier) @import.module) @import
