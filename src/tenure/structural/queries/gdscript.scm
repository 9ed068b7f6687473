; GDScript: a script is a class; with `class_name X` its functions nest under X (via @owner) and
; its `extends` is X's super type. Inner classes, enums, signals, functions, calls (`a.f()` gives
; receiver `a`), `X.new()`, preload / load. Capture conventions: see README.md.

; --- definitions
(class_name_statement name: (name) @name) @definition.class
(source
  (class_name_statement name: (name) @owner)
  [(function_definition name: (name) @name) (signal_statement name: (name) @name)] @definition.method)
(class_body (function_definition name: (name) @name) @definition.method)
(class_definition name: (name) @name) @definition.class
(enum_definition name: (name) @name) @definition.enum
(signal_statement name: (name) @name) @definition.method
(function_definition name: (name) @name) @definition.function
(constructor_definition "_init" @name) @definition.constructor

; --- inheritance: the script's `extends` (owned by its class_name), an inner class's extends
(source
  (class_name_statement name: (name) @owner)
  (extends_statement [(type) (string)] @name @reference.inherits))
(source
  (extends_statement [(type) (string)] @name @reference.inherits)
  (class_name_statement name: (name) @owner))
(class_definition extends: (extends_statement [(type) (string)] @name @reference.inherits))

; --- calls
(call . (identifier) @name (#not-match? @name "^(preload|load)$")) @reference.call
(attribute
  . (_)+ @receiver
  . (attribute_call (identifier) @name (#not-eq? @name "new")) @reference.call)
(attribute
  . (identifier) @name
  . (attribute_call (identifier) @_new (#eq? @_new "new")) @reference.new)

; --- imports: preload("res://x.gd"), load(...), extends "res://base.gd"
(call
  . (identifier) @_p (#match? @_p "^(preload|load)$")
  arguments: (arguments . (string) @import.module)) @import
(extends_statement (string) @import.module) @import
