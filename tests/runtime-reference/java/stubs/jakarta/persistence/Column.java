package jakarta.persistence;

public @interface Column {
  String name() default "";

  boolean nullable() default true;
}
