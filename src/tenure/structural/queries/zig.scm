; Zig: `const T = struct|enum|union {...}` containers, functions (methods inside a container),
; calls (`f()`, `a.b.f()` with receiver `a.b`), `@import`. The grammar's node names follow
; Zig's PEG grammar (Decl, FnProto, SuffixExpr, FieldOrFnCall). Capture conventions: see README.md.

; --- definitions
(VarDecl
  variable_type_function: (IDENTIFIER) @name
  (ErrorUnionExpr (SuffixExpr (ContainerDecl (ContainerDeclType "struct"))))) @definition.struct
(VarDecl
  variable_type_function: (IDENTIFIER) @name
  (ErrorUnionExpr (SuffixExpr (ContainerDecl (ContainerDeclType "enum"))))) @definition.enum
(VarDecl
  variable_type_function: (IDENTIFIER) @name
  (ErrorUnionExpr (SuffixExpr (ContainerDecl (ContainerDeclType ["union" "opaque"]))))) @definition.type
(ContainerDecl (Decl (FnProto function: (IDENTIFIER) @name)) @definition.method)
(Decl (FnProto function: (IDENTIFIER) @name)) @definition.function

; --- calls
(SuffixExpr
  variable_type_function: (IDENTIFIER) @name
  .
  (FnCallArguments) @reference.call)
(SuffixExpr
  . (IDENTIFIER) @receiver
  . (FieldOrFnCall)* @receiver
  . (FieldOrFnCall function_call: (IDENTIFIER) @name (FnCallArguments)) @reference.call)

(_
  (ErrorUnionExpr (SuffixExpr . variable_type_function: (IDENTIFIER) @name .))
  .
  (InitList) @reference.new)

; --- imports: const name = @import("path")
(VarDecl
  variable_type_function: (IDENTIFIER) @import.alias
  (ErrorUnionExpr
    (SuffixExpr
      (BUILTINIDENTIFIER) @_i (#eq? @_i "@import")
      .
      (FnCallArguments (ErrorUnionExpr (SuffixExpr (STRINGLITERALSINGLE) @import.module)))))) @import
