; PowerShell: classes (a method named like its class is the constructor), enums, functions,
; commands and .NET method calls, `[T]::new()`, using / Import-Module / dot-sourcing, base types.
; Capture conventions: see README.md.

; --- definitions
(class_statement . (simple_name) @name) @definition.class
(enum_statement . (simple_name) @name) @definition.enum
(class_statement
  . (simple_name) @_class
  (class_method_definition (simple_name) @name (#eq? @name @_class)) @definition.constructor)
(class_method_definition (simple_name) @name) @definition.method
(function_statement (function_name) @name) @definition.function

; --- base class and interfaces: `class Service : BaseService, IDisposable`
(class_statement . (simple_name) (simple_name) @name @reference.inherits)

; --- calls
(command
  command_name: (command_name) @name
  (#not-match? @name "^(using|Import-Module|ipmo|Invoke-Expression|iex)$")) @reference.call
(invokation_expression
  . [(variable) (type_literal) (member_access) (invokation_expression) (parenthesized_expression)] @receiver
  (member_name (simple_name) @name)
  (#not-eq? @name "new")) @reference.call
(invokation_expression
  . (type_literal (type_spec (type_name (type_identifier) @name)))
  (member_name (simple_name) @_new (#eq? @_new "new"))) @reference.new
(command command_name: (command_name) @_iex (#match? @_iex "^(Invoke-Expression|iex)$")) @reference.dynamic

; --- imports: using namespace|module X, Import-Module X, . ./file.ps1
(command
  command_name: (command_name) @_u (#eq? @_u "using")
  command_elements: (command_elements
    (generic_token) . (command_argument_sep) . (generic_token) @import.module)) @import
(command
  command_name: (command_name) @_i (#match? @_i "^(Import-Module|ipmo)$")
  command_elements: (command_elements . (command_argument_sep) . (generic_token) @import.module)) @import
(command
  (command_invokation_operator) @_dot (#eq? @_dot ".")
  command_name: (command_name_expr) @import.module) @import
