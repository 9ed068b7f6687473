; Ruby: modules, classes, methods, calls, `X.new`, require, superclass and mixins.
; Capture conventions: see README.md.

; --- definitions
(module name: [(constant) (scope_resolution)] @name) @definition.module
(class name: [(constant) (scope_resolution)] @name) @definition.class
(method name: (_) @name) @definition.method
(singleton_method name: (_) @name) @definition.method

; --- inheritance: `class A < B`, and `include`/`extend`/`prepend` mixins
(superclass [(constant) (scope_resolution)] @name @reference.inherits)
(call
  !receiver
  method: (identifier) @_mixin (#match? @_mixin "^(include|extend|prepend)$")
  arguments: (argument_list [(constant) (scope_resolution)] @name @reference.implements))

; --- calls (statements that are really declarations or imports are left out)
(call
  !receiver
  method: (identifier) @name
  (#not-match? @name "^(require|require_relative|load|autoload|include|extend|prepend|private|protected|public|module_function|attr_reader|attr_writer|attr_accessor|send|public_send|__send__|eval|instance_eval|class_eval)$")) @reference.call
(call
  receiver: (_) @receiver
  method: (identifier) @name
  (#not-match? @name "^(new|send|public_send|__send__|instance_eval|class_eval)$")) @reference.call
(call
  receiver: [(constant) (scope_resolution)] @name
  method: (identifier) @_new (#eq? @_new "new")) @reference.new
(call
  method: (identifier) @_m
  (#match? @_m "^(send|public_send|__send__|eval|instance_eval|class_eval|method)$")) @reference.dynamic

; --- imports
(call
  !receiver
  method: (identifier) @_req (#match? @_req "^(require|require_relative|load)$")
  arguments: (argument_list . (string (string_content) @import.module))) @import
