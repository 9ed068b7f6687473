; Apex (Salesforce): classes, interfaces, enums, triggers, methods, constructors, calls, `new`,
; extends / implements. Apex has no package or import statements: classes live in one org-wide
; namespace. Capture conventions: see README.md.

; --- definitions
(class_declaration name: (identifier) @name) @definition.class
(interface_declaration name: (identifier) @name) @definition.interface
(enum_declaration name: (identifier) @name) @definition.enum
(trigger_declaration name: (identifier) @name) @definition.class
(method_declaration name: (identifier) @name) @definition.method
(constructor_declaration name: (identifier) @name) @definition.constructor

; --- inheritance
(superclass (type_identifier) @name @reference.inherits)
(superclass (generic_type (type_identifier) @name @reference.inherits))
(interfaces (type_list (type_identifier) @name @reference.implements))
(interfaces (type_list (generic_type (type_identifier) @name @reference.implements)))
(interfaces (type_list (scoped_type_identifier) @name @reference.implements))
(extends_interfaces (type_list (type_identifier) @name @reference.inherits))

; --- calls
(method_invocation object: _ @receiver name: (identifier) @name) @reference.call
(method_invocation !object name: (identifier) @name) @reference.call
(object_creation_expression type: (type_identifier) @name) @reference.new
(object_creation_expression type: (generic_type (type_identifier) @name)) @reference.new
(object_creation_expression type: (scoped_type_identifier) @name) @reference.new
