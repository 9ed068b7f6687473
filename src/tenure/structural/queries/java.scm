; Java: definitions, calls, constructor calls, imports, inheritance. See queries/README.md.

(package_declaration [(scoped_identifier) (identifier)] @package)

(class_declaration name: (identifier) @name) @definition.class
(interface_declaration name: (identifier) @name) @definition.interface
(enum_declaration name: (identifier) @name) @definition.enum
(record_declaration name: (identifier) @name) @definition.class
(annotation_type_declaration name: (identifier) @name) @definition.interface
(method_declaration type: (_) @returns name: (identifier) @name) @definition.method
(constructor_declaration name: (identifier) @name) @definition.constructor
; a record component declares its accessor: `record Pair(Item left)` has a method `left()` returning an Item
(record_declaration
  parameters: (formal_parameters (formal_parameter type: (_) @returns name: (identifier) @name) @definition.method))
; an anonymous class is its body (its arguments are evaluated outside it); the Java extractor names
; it as javac does (`Outer$1`), as it does local classes (`Outer$1Local`)
(object_creation_expression type: (_) @name (class_body) @definition.class)
(enum_constant name: (identifier) @name body: (class_body) @definition.class)

(superclass [(type_identifier) (scoped_type_identifier)] @name @reference.inherits)
(superclass (generic_type [(type_identifier) (scoped_type_identifier)] @name @reference.inherits))
(super_interfaces (type_list [(type_identifier) (scoped_type_identifier)] @name @reference.implements))
(super_interfaces (type_list (generic_type [(type_identifier) (scoped_type_identifier)] @name @reference.implements)))
(extends_interfaces (type_list [(type_identifier) (scoped_type_identifier)] @name @reference.inherits))
(extends_interfaces (type_list (generic_type [(type_identifier) (scoped_type_identifier)] @name @reference.inherits)))

(method_invocation object: (_) @receiver name: (identifier) @name) @reference.call
(method_invocation !object name: (identifier) @name) @reference.call
(object_creation_expression type: (type_identifier) @name) @reference.new
(object_creation_expression type: (generic_type (type_identifier) @name)) @reference.new
; `new Outer.Inner()`: the qualifier is the receiver, as for a call
(object_creation_expression
  type: (scoped_type_identifier (_) @receiver . (type_identifier) @name)) @reference.new
; method references: `Foo::bar`, `this::m` call the method; `Foo::new` makes a Foo
(method_reference . (_) @receiver . "::" . (type_arguments)? . (identifier) @name .) @reference.call
(method_reference . (_) @name . "::" . "new" .) @reference.new
; `super(...)` in a constructor: a call of the super class's constructor; `this(...)`, of another of its own
(explicit_constructor_invocation constructor: [(super) (this)] @name) @reference.call

; --- bindings: declared types of fields, parameters and locals (receiver types for calls)
(field_declaration
  type: (_) @binding.type
  declarator: (variable_declarator name: (identifier) @binding.name)) @binding
(constant_declaration
  type: (_) @binding.type
  declarator: (variable_declarator name: (identifier) @binding.name)) @binding
(formal_parameter type: (_) @binding.type name: (identifier) @binding.name) @binding
(enhanced_for_statement type: (_) @binding.type name: (identifier) @binding.name) @binding
(local_variable_declaration
  type: (_) @binding.type (#not-eq? @binding.type "var")
  declarator: (variable_declarator name: (identifier) @binding.name)) @binding
(local_variable_declaration
  type: (type_identifier) @_var (#eq? @_var "var")
  declarator: (variable_declarator
    name: (identifier) @binding.name
    value: (object_creation_expression type: (_) @binding.type))) @binding
; `var x = factory.create()`: what `create`'s declared result type says (@returns)
(local_variable_declaration
  type: (type_identifier) @_var (#eq? @_var "var")
  declarator: (variable_declarator
    name: (identifier) @binding.name
    value: (method_invocation object: (_)? @binding.call name: (identifier) @binding.call))) @binding
; No binding from `this.x = new X()`: a Java field has the type its declaration writes, and a call
; through it names that type's method whatever the field holds.

; One pattern with an optional wildcard, so `import a.b.*;` yields one import, not two.
(import_declaration (scoped_identifier) @import.module (asterisk)? @import.wildcard) @import
