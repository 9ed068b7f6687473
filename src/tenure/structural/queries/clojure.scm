; Clojure: everything is a list, so forms are told apart by their head symbol. Definitions
; (defn, defmacro, defprotocol, defrecord and their methods, ...), calls (a list headed by a
; symbol that is not a special form; `ns/f` gives receiver `ns`), the ns form's :require and
; :import, and the protocols a defrecord / deftype implements. Java interop forms (`.method`,
; `Class.`) are left out. Capture conventions: see README.md.

; --- the namespace
((list_lit . (sym_lit name: (sym_name) @_ns) . (sym_lit name: (sym_name) @package))
  (#eq? @_ns "ns"))

; --- definitions
((list_lit . (sym_lit name: (sym_name) @_k) . (sym_lit name: (sym_name) @name)) @definition.function
  (#match? @_k "^(defn|defn-|defmulti|defn\\^)$"))
((list_lit . (sym_lit name: (sym_name) @_k) . (sym_lit name: (sym_name) @name)) @definition.macro
  (#eq? @_k "defmacro"))
((list_lit . (sym_lit name: (sym_name) @_k) . (sym_lit name: (sym_name) @name)) @definition.interface
  (#match? @_k "^(defprotocol|definterface)$"))
((list_lit . (sym_lit name: (sym_name) @_k) . (sym_lit name: (sym_name) @name)) @definition.class
  (#match? @_k "^(defrecord|deftype)$"))
((list_lit . (sym_lit name: (sym_name) @_k) . (sym_lit name: (sym_name) @name)) @definition.constant
  (#match? @_k "^(def|defonce)$"))
; protocol signatures and record / type method bodies: `(name [args] ...)` inside the form
((list_lit
   . (sym_lit name: (sym_name) @_k)
   (list_lit . (sym_lit name: (sym_name) @name) . (vec_lit)) @definition.method)
  (#match? @_k "^(defprotocol|definterface|defrecord|deftype)$"))
; `(defmethod area :circle [c] ...)`: one method of a multimethod
((list_lit . (sym_lit name: (sym_name) @_k) . (sym_lit name: (sym_name) @name)) @definition.method
  (#eq? @_k "defmethod"))

; --- the protocols / interfaces a record or type implements: the symbols after its field vector
((list_lit
   . (sym_lit name: (sym_name) @_k)
   . (sym_lit)
   . (vec_lit)
   (sym_lit name: (sym_name) @name @reference.implements))
  (#match? @_k "^(defrecord|deftype)$"))

; --- calls
((list_lit . (sym_lit !namespace name: (sym_name) @name)) @reference.call
  (#not-match? @name "^(ns|def|defn|defn-|defmacro|defmulti|defmethod|defprotocol|definterface|defrecord|deftype|defonce|fn|fn\\*|let|letfn|loop|recur|if|if-not|when|when-not|when-let|if-let|cond|condp|case|do|doto|quote|var|try|catch|finally|throw|binding|require|import|use|new|set!|.*\\..*)$"))
((list_lit . (sym_lit namespace: (sym_ns) @receiver name: (sym_name) @name)) @reference.call)
((list_lit . (sym_lit name: (sym_name) @_f)) @reference.dynamic
  (#match? @_f "^(eval|resolve|ns-resolve|requiring-resolve|apply)$"))

; --- imports: (ns x (:require [a.b :as c] d.e) (:import (java.util Date))), (require '[a.b])
((list_lit
   . (kwd_lit name: (kwd_name) @_r)
   (vec_lit
     . (sym_lit name: (sym_name) @import.module)
     ((kwd_lit name: (kwd_name) @_as) . (sym_lit name: (sym_name) @import.alias))?) @import)
  (#match? @_r "^(require|use)$")
  (#eq? @_as "as"))
((list_lit . (kwd_lit name: (kwd_name) @_r) (sym_lit name: (sym_name) @import.module) @import)
  (#match? @_r "^(require|use|import)$"))
((list_lit
   . (kwd_lit name: (kwd_name) @_r)
   (list_lit . (sym_lit name: (sym_name) @import.module) (sym_lit name: (sym_name) @import.name)) @import)
  (#eq? @_r "import"))
((list_lit
   . (sym_lit name: (sym_name) @_r)
   (quoting_lit (vec_lit . (sym_lit name: (sym_name) @import.module))) @import)
  (#match? @_r "^(require|use)$"))
