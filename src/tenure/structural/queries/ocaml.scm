; OCaml (.ml, and .mli with the ocaml_interface grammar): modules, module types, types, functions (let bindings with parameters or a fun body),
; classes and methods, applications and method calls, open / module aliases / include, class
; inheritance and module type ascription. Capture conventions: see README.md.

; --- definitions
(module_binding (module_name) @name body: [(structure) (functor) (module_application)]) @definition.module
(module_binding (module_name) @name module_type: (_) !body) @definition.module
(module_type_definition (module_type_name) @name) @definition.interface
(value_specification (value_name) @name) @definition.function
(type_binding name: (type_constructor) @name) @definition.type
(let_binding pattern: (value_name) @name (parameter)) @definition.function
(let_binding pattern: (value_name) @name body: [(fun_expression) (function_expression)]) @definition.function
(class_binding (class_name) @name) @definition.class
(class_type_binding (class_type_name) @name) @definition.interface
(method_definition (method_name) @name) @definition.method
(method_specification (method_name) @name) @definition.method
(external (value_name) @name) @definition.function
(exception_definition (constructor_declaration (constructor_name) @name)) @definition.type

; --- inheritance: `inherit base`, `module M : SIG = struct ... end`, `include M`
(inheritance_definition class: (class_path) @name @reference.inherits)
(inheritance_specification class_type: (class_type_path) @name @reference.inherits)
(module_binding module_type: (module_type_path (module_type_name) @name @reference.implements))
(structure (include_module module: (module_path) @name @reference.inherits))

; --- calls
(application_expression function: (value_path . (value_name) @name)) @reference.call
(application_expression
  function: (value_path (module_path) @receiver (value_name) @name)) @reference.call
(method_invocation object: (_) @receiver method: (method_name) @name) @reference.call
(new_expression (class_path (class_name) @name)) @reference.new

; --- imports: open M, module A = M, include M
(open_module module: (module_path) @import.module) @import.wildcard @import
(module_binding (module_name) @import.alias body: (module_path) @import.module) @import
(include_module module: (module_path) @import.module) @import.wildcard @import
