package org.springframework.data.jpa.repository;

/** Stand-in for Spring Data's JpaRepository: only what the memory store and index call. */
public interface JpaRepository<T, I> {
  <S extends T> S save(S entity);
}
