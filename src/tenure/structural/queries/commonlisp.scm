; Common Lisp: defun / defmacro / defgeneric / defmethod, defclass / define-condition /
; defstruct (with superclasses), calls (a list headed by a symbol that is not a special form;
; `pkg:f` gives receiver `pkg`), in-package as the @package, defpackage :use / :import-from,
; require. Capture conventions: see README.md.

((list_lit . (sym_lit) @_k . [(kwd_lit (kwd_symbol) @package) (sym_lit) @package])
  (#eq? @_k "in-package"))

; --- definitions
(defun (defun_header keyword: (defun_keyword "defun") function_name: (_) @name)) @definition.function
(defun (defun_header keyword: (defun_keyword "defgeneric") function_name: (_) @name)) @definition.function
(defun (defun_header keyword: (defun_keyword "defmethod") function_name: (_) @name)) @definition.method
(defun (defun_header keyword: (defun_keyword "defmacro") function_name: (_) @name)) @definition.macro
((list_lit . (sym_lit) @_k . (sym_lit) @name) @definition.class
  (#match? @_k "^(defclass|define-condition)$"))
((list_lit . (sym_lit) @_k . [(sym_lit) @name (list_lit . (sym_lit) @name)]) @definition.struct
  (#eq? @_k "defstruct"))

; --- superclasses: (defclass name (super ...) slots)
((list_lit . (sym_lit) @_k . (sym_lit) . (list_lit (sym_lit) @name @reference.inherits))
  (#match? @_k "^(defclass|define-condition)$"))

; --- calls. A list is a call when it is evaluated: a top-level form, a body form of a defun, an
; argument of a call, or a body / init form of a binding form. Lambda lists, let bindings and
; slot specs are lists too, so they are skipped by position.
((source (list_lit . (sym_lit) @name) @reference.call)
  (#not-match? @name "^(defpackage|in-package|defclass|define-condition|defstruct|defvar|defparameter|defconstant|deftype|require|eval|quote)$"))
((defun (list_lit . (sym_lit) @name) @reference.call)
  (#not-match? @name "^(let|let\\*|flet|labels|macrolet|lambda|if|when|unless|cond|case|ecase|typecase|etypecase|progn|prog1|block|return-from|dolist|dotimes|do|do\\*|loop|destructuring-bind|multiple-value-bind|with-slots|with-accessors|with-open-file|handler-case|restart-case|unwind-protect|declare|quote|function|setf|setq|eval)$"))
(defun (list_lit . (package_lit package: (_) @receiver symbol: (_) @name)) @reference.call)
((list_lit
   . (sym_lit) @_head
   (list_lit . (sym_lit) @name) @reference.call)
  (#not-match? @_head "^(defpackage|defclass|define-condition|defstruct|deftype|let|let\\*|flet|labels|macrolet|symbol-macrolet|lambda|dolist|dotimes|do|do\\*|destructuring-bind|multiple-value-bind|with-slots|with-accessors|with-open-file|with-output-to-string|handler-case|restart-case|case|ecase|typecase|etypecase|cond|quote|function|declare|loop)$")
  (#not-match? @name "^(let|let\\*|flet|labels|lambda|if|when|unless|cond|case|ecase|typecase|progn|prog1|block|dolist|dotimes|do|loop|destructuring-bind|multiple-value-bind|declare|quote|function|setf|setq)$"))
((list_lit
   . (sym_lit) @_head
   (list_lit . (package_lit package: (_) @receiver symbol: (_) @name)) @reference.call)
  (#not-match? @_head "^(defpackage|defclass|define-condition|defstruct|let|let\\*|flet|labels|lambda|quote|declare)$"))
; binding forms: the body after the bindings / lambda list, and let's init forms
((list_lit
   . (sym_lit) @_head
   . (_)
   (list_lit . (sym_lit) @name) @reference.call)
  (#match? @_head "^(let|let\\*|flet|labels|macrolet|lambda|dolist|dotimes|destructuring-bind|multiple-value-bind|with-slots|with-accessors|with-open-file|handler-case)$"))
((list_lit
   . (sym_lit) @_head
   . (list_lit (list_lit . (sym_lit) . (list_lit . (sym_lit) @name) @reference.call)))
  (#match? @_head "^(let|let\\*)$"))
((list_lit
   . (sym_lit) @_head
   . (list_lit (list_lit . (sym_lit) . (list_lit . (package_lit package: (_) @receiver symbol: (_) @name)) @reference.call)))
  (#match? @_head "^(let|let\\*)$"))
((list_lit
   . (sym_lit) @_head
   . (_)
   (list_lit . (package_lit package: (_) @receiver symbol: (_) @name)) @reference.call)
  (#match? @_head "^(let|let\\*|flet|labels|macrolet|lambda|dolist|dotimes|destructuring-bind|multiple-value-bind|with-slots|with-accessors|with-open-file|handler-case)$"))
; cond / case clauses: the forms after a clause's test or key
((list_lit
   . (sym_lit) @_head
   (list_lit . (_) (list_lit . (sym_lit) @name) @reference.call))
  (#match? @_head "^(cond|case|ecase|typecase|etypecase)$"))
((list_lit . (sym_lit) @_e) @reference.dynamic
  (#match? @_e "^(eval|funcall|apply)$"))

; --- imports
((list_lit . (kwd_lit (kwd_symbol) @_u) [(kwd_lit (kwd_symbol) @import.module) (sym_lit) @import.module]) @import
  (#eq? @_u "use"))
((list_lit . (kwd_lit (kwd_symbol) @_u) . [(kwd_lit (kwd_symbol) @import.module) (sym_lit) @import.module]) @import
  (#match? @_u "^(import-from|shadowing-import-from)$"))
((list_lit . (sym_lit) @_r . [(kwd_lit (kwd_symbol) @import.module) (str_lit) @import.module]) @import
  (#eq? @_r "require"))
((list_lit . (package_lit symbol: (_) @_l) . [(kwd_lit (kwd_symbol) @import.module) (quoting_lit) @import.module]) @import
  (#match? @_l "^(quickload|load-system)$"))
