package org.springframework.ai.tool.annotation;

public @interface ToolParam {
  String description() default "";
}
