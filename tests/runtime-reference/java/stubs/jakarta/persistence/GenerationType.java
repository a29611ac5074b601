package jakarta.persistence;

public enum GenerationType {
  IDENTITY
}
