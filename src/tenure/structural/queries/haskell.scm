; Haskell: type classes, data / newtype / type synonyms, functions, instance methods (nested
; under the instance type via @owner), applications as calls, imports, instances and deriving
; as super types. Capture conventions: see README.md.

(header module: (module) @package)

; --- definitions
(class name: (name) @name) @definition.trait
(class_declarations (signature name: (variable) @name) @definition.method)
(data_type name: (name) @name) @definition.type
(newtype name: (name) @name) @definition.type
(type_synomym name: (name) @name) @definition.type
(type_family name: (name) @name) @definition.type
(instance
  patterns: (type_patterns . [(name) (parens (apply . (name)))] @owner)
  declarations: (instance_declarations [(function name: (variable) @name) (bind name: (variable) @name)] @definition.method))
(function name: (variable) @name) @definition.function
(bind name: (variable) @name) @definition.function

; --- super types: `instance C T` (T implements C), `deriving (Show, Eq)`
(instance
  name: [(name) (qualified)] @name @reference.implements
  patterns: (type_patterns . [(name) (parens (apply . (name)))] @owner))
(deriving classes: [(name) (qualified)] @name @reference.implements)
(deriving classes: (tuple [(name) (qualified)] @name @reference.implements))

; --- calls: an application of a named function
(apply function: (variable) @name) @reference.call
; (the module node ends in its "."; the quantified capture spans `Data.Map` without it)
(apply
  function: (qualified
    module: (module . ((module_id) @receiver "."?)+)
    id: (variable) @name)) @reference.call
(apply function: (constructor) @name) @reference.new

; --- imports
(import module: (module) @import.module alias: (module)? @import.alias) @import
