; Perl: packages (a block package is a class-like definition; the first package is the file's
; @package), subs, function and method calls, use / require, `use parent|base` and @ISA.
; Capture conventions: see README.md.

(package_statement name: (package) @package)

; --- definitions
(package_statement name: (package) @name (block)) @definition.class
(subroutine_declaration_statement name: (bareword) @name) @definition.function
(method_declaration_statement name: (bareword) @name) @definition.method
(class_statement name: (package) @name) @definition.class

; --- inheritance: use parent / use base, our @ISA = (...)
(use_statement
  module: (package) @_p (#match? @_p "^(parent|base)$")
  [(string_literal (string_content) @name @reference.inherits)
   (interpolated_string_literal (string_content) @name @reference.inherits)
   (quoted_word_list (string_content) @name @reference.inherits)
   (list_expression (string_literal (string_content) @name @reference.inherits))
   (list_expression (interpolated_string_literal (string_content) @name @reference.inherits))])
(assignment_expression
  left: (variable_declaration variable: (array (varname) @_isa (#eq? @_isa "ISA")))
  right: (string_literal (string_content) @name @reference.inherits))
(assignment_expression
  left: (array (varname) @_isa (#eq? @_isa "ISA"))
  right: (string_literal (string_content) @name @reference.inherits))

; --- calls
(function_call_expression function: (function) @name (#match? @name "^[A-Za-z_]")) @reference.call
(function_call_expression function: (function (varname) @name)) @reference.call
(ambiguous_function_call_expression
  function: (function) @name
  (#not-match? @name "^(bless|return|print|push|die|warn)$")) @reference.call
(method_call_expression
  invocant: (_) @receiver
  method: (method) @name (#match? @name "^[A-Za-z_]")) @reference.call
(method_call_expression
  invocant: (bareword) @name
  method: (method) @_new (#eq? @_new "new")) @reference.new
(method_call_expression method: (method (scalar))) @reference.dynamic

; --- imports: use Module (pragmas such as strict / warnings / parent are lower case), require
(use_statement module: (package) @import.module (#match? @import.module "^[A-Z]")) @import
(require_expression (bareword) @import.module) @import
(require_expression (string_literal (string_content) @import.module)) @import
