package org.springframework.data.domain;

/** Stand-in for Spring Data's PageRequest (only {@code of(page, size)}). */
public final class PageRequest implements Pageable {
  private final int page;
  private final int size;

  private PageRequest(int page, int size) {
    this.page = page;
    this.size = size;
  }

  public static PageRequest of(int page, int size) {
    return new PageRequest(page, size);
  }

  @Override
  public int getPageNumber() {
    return page;
  }

  @Override
  public int getPageSize() {
    return size;
  }
}
