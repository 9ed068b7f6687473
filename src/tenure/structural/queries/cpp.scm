; C++: classes, structs, functions, methods (out-of-line `T::f` nests under T via @owner), calls,
; `new`, #include and `using namespace`, base classes. Capture conventions: see README.md.
; Prototypes at file scope are not definitions; member declarations in a class body are.

(namespace_definition name: [(namespace_identifier) (nested_namespace_specifier)] @package)

; --- definitions (specific patterns first: see README.md)
(class_specifier name: [(type_identifier) (template_type name: (type_identifier))] @name body: (_)) @definition.class
(struct_specifier name: [(type_identifier) (template_type name: (type_identifier))] @name body: (_)) @definition.struct
(union_specifier name: (type_identifier) @name body: (_)) @definition.struct
(enum_specifier name: (type_identifier) @name body: (_)) @definition.enum
(type_definition
  type: [(struct_specifier !name body: (_)) (class_specifier !name body: (_))] @definition.struct
  declarator: (type_identifier) @name)
(type_definition
  type: [(primitive_type) (type_identifier) (sized_type_specifier) (qualified_identifier) (template_type)]
  declarator: (type_identifier) @name) @definition.type
(alias_declaration name: (type_identifier) @name) @definition.type
(concept_definition name: (identifier) @name) @definition.type
(preproc_function_def name: (identifier) @name) @definition.macro
(preproc_def name: (identifier) @name) @definition.constant

; out-of-line members: `int Service<T>::retry(...)`, `ns::Service::retry`
(function_definition
  declarator: (function_declarator
    declarator: (qualified_identifier
      scope: [(namespace_identifier) (template_type)] @owner
      name: [(identifier) (destructor_name) (operator_name)] @name))) @definition.method
(function_definition
  declarator: (function_declarator
    declarator: (qualified_identifier
      name: (qualified_identifier
        scope: [(namespace_identifier) (template_type)] @owner
        name: [(identifier) (destructor_name) (operator_name)] @name)))) @definition.method
(function_definition
  declarator: [(pointer_declarator (function_declarator
                 declarator: (qualified_identifier scope: [(namespace_identifier) (template_type)] @owner name: (identifier) @name)))
               (reference_declarator (function_declarator
                 declarator: (qualified_identifier scope: [(namespace_identifier) (template_type)] @owner name: (identifier) @name)))]) @definition.method
; in a class body: a function named like an identifier is a constructor
(field_declaration_list
  (function_definition
    declarator: (function_declarator declarator: (identifier) @name)) @definition.constructor)
(field_declaration_list
  (declaration declarator: (function_declarator declarator: (identifier) @name)) @definition.constructor)
(function_definition
  declarator: (function_declarator declarator: [(field_identifier) (destructor_name) (operator_name)] @name)) @definition.method
(function_definition
  declarator: [(pointer_declarator (function_declarator declarator: (field_identifier) @name))
               (reference_declarator (function_declarator declarator: (field_identifier) @name))]) @definition.method
(field_declaration
  declarator: (function_declarator declarator: [(field_identifier) (operator_name)] @name)) @definition.method
(field_declaration
  declarator: [(pointer_declarator (function_declarator declarator: (field_identifier) @name))
               (reference_declarator (function_declarator declarator: (field_identifier) @name))]) @definition.method
(function_definition
  declarator: (function_declarator declarator: (identifier) @name)) @definition.function
(function_definition
  declarator: [(pointer_declarator (function_declarator declarator: (identifier) @name))
               (reference_declarator (function_declarator declarator: (identifier) @name))]) @definition.function

; --- inheritance
(base_class_clause [(type_identifier) (qualified_identifier)] @name @reference.inherits)
(base_class_clause (template_type name: (type_identifier) @name @reference.inherits))
(base_class_clause
  (qualified_identifier name: (template_type name: (type_identifier) @name @reference.inherits)))

; --- calls
(call_expression function: (identifier) @name) @reference.call
(call_expression function: (template_function name: (identifier) @name)) @reference.call
(call_expression
  function: (qualified_identifier
    scope: (_) @receiver
    name: [(identifier) (template_function name: (identifier))] @name)) @reference.call
(call_expression
  function: (field_expression argument: (_) @receiver field: (field_identifier) @name)) @reference.call
(call_expression
  function: (field_expression
    argument: (_) @receiver field: (template_method name: (field_identifier) @name))) @reference.call
(new_expression type: [(type_identifier) (qualified_identifier)] @name) @reference.new
(new_expression type: (template_type name: (type_identifier) @name)) @reference.new
(call_expression function: (parenthesized_expression)) @reference.dynamic

; --- imports
(preproc_include path: [(string_literal) (system_lib_string)] @import.module) @import
(using_declaration "namespace" [(identifier) (qualified_identifier)] @import.module) @import.wildcard @import
