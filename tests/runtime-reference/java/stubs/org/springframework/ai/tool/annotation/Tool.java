package org.springframework.ai.tool.annotation;

public @interface Tool {
  String name() default "";

  String description() default "";
}
