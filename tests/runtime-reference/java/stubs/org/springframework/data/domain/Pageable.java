package org.springframework.data.domain;

/** Stand-in for Spring Data's page request: an offset and a size. */
public interface Pageable {
  int getPageNumber();

  int getPageSize();
}
