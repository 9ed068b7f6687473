; Pascal / Delphi / Free Pascal: classes, interfaces, records, enums, type aliases, methods
; (declared in the class, defined out of line as `TFoo.Bar`, nested under TFoo via @owner),
; procedures and functions, calls (also parameterless statements such as `Self.Close;`), uses
; clauses, parent classes. The unit / program name is the @package. Forward declarations in the
; interface section are not definitions. Capture conventions: see README.md.

(unit (moduleName) @package)
(program (moduleName) @package)
(library (moduleName) @package)

; --- types
(declType name: (identifier) @name type: (declClass (kRecord))) @definition.struct
(declType name: (identifier) @name type: (declClass)) @definition.class
(declType name: (identifier) @name type: (declIntf)) @definition.interface
(declType name: (identifier) @name type: (declHelper)) @definition.class
(declType name: (identifier) @name type: (type (declEnum))) @definition.enum
(declType name: (identifier) @name) @definition.type

; --- methods declared in a class / interface body
(declClass (declSection (declProc name: (identifier) @name) @definition.method))
(declClass (declProc name: (identifier) @name) @definition.method)
(declIntf (declProc name: (identifier) @name) @definition.method)

; --- routine bodies: `TFoo.Bar` is a method of TFoo
(defProc
  header: (declProc (kConstructor) name: (genericDot lhs: (identifier) @owner rhs: (identifier) @name))) @definition.constructor
(defProc
  header: (declProc name: (genericDot lhs: (identifier) @owner rhs: (identifier) @name))) @definition.method
(defProc header: (declProc name: (identifier) @name)) @definition.function

; --- inheritance
(declClass parent: (typeref) @name @reference.inherits)
(declIntf parent: (typeref) @name @reference.inherits)

; --- calls
(exprCall entity: (identifier) @name) @reference.call
(exprCall entity: (exprDot lhs: (_) @receiver rhs: (identifier) @name)) @reference.call
(statement (exprDot lhs: (_) @receiver rhs: (identifier) @name) @reference.call)
(statement (identifier) @name @reference.call)

; --- imports
(declUses (moduleName) @import.module) @import
