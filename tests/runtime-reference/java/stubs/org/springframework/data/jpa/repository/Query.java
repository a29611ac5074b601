package org.springframework.data.jpa.repository;

import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;

/** Stand-in for Spring Data's @Query; the driver's repository runs the same query in SQL. */
@Retention(RetentionPolicy.RUNTIME)
public @interface Query {
  String value();
}
