package org.springframework.transaction.annotation;

/** Stand-in for Spring's @Transactional; the driver's repository runs each call on its own. */
public @interface Transactional {
  Class<? extends Throwable>[] rollbackFor() default {};
}
