; Haxe: classes, interfaces, typedefs, functions (`new` is the constructor), calls, `new`,
; import / using, extends / implements. The pack's grammar has no enum, abstract or arrow
; function nodes. Capture conventions: see README.md.

(package_statement name: (package_name) @package)

; --- definitions
(class_declaration name: (identifier) @name) @definition.class
(interface_declaration name: (identifier) @name) @definition.interface
(typedef_declaration name: (identifier) @name) @definition.type
(function_declaration name: "new" @name) @definition.constructor
(function_declaration name: (identifier) @name) @definition.method

; --- inheritance
(class_declaration super_class_name: (type_name) @name @reference.inherits)
(class_declaration interface_name: (type_name) @name @reference.implements)
(interface_declaration super_class_name: (type_name) @name @reference.inherits)

; --- calls
(call_expression object: (identifier) @name (#not-eq? @name "super")) @reference.call
(call_expression object: (member_expression object: _ @receiver member: (identifier) @name)) @reference.call
(call_expression constructor: (type_name) @name) @reference.new

; --- imports: import a.b.C [as D], using a.b.C
(import_statement
  . ((package_name) @import.module ".")* . (type_name) @import.module . (type_name)? @import.alias) @import
(import_statement . (type_name) @import.module . (type_name)? @import.alias) @import
(using_statement
  . ((package_name) @import.module ".")* . (type_name) @import.module) @import
(using_statement . (type_name) @import.module) @import
